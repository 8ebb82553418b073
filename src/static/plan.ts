/**
 * The answer to a GET or HEAD on an existing file, pure: status, headers and which bytes to
 * send, from the request's fields, the file's facts and the clock. The I/O lives in
 * `../static.ts`.
 */
import { evaluatePreconditions, formatHttpDate, ifRangeHolds, type ConditionalFields, type Validators } from './conditional.js';
import { decideRange } from './ranges.js';
import type { HeaderList } from '../http/index.js';
import { unreachable } from '../util/unreachable.js';

export const DEFAULT_CACHE_CONTROL = 'public, max-age=3600';
/** Posters have content-hashed names: a name never changes meaning. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** Request fields a file answer depends on. */
export interface FileRequest extends ConditionalFields {
  readonly method: 'GET' | 'HEAD';
  readonly range?: string | undefined;
  readonly ifRange?: string | undefined;
}

/** What is known of the file once it is open. */
export interface FileFacts extends Validators {
  readonly size: number;
  readonly contentType: string;
  readonly cacheControl: string;
}

/** An answer to send: the file, part of it, or 304. */
export interface SendPlan {
  readonly status: 200 | 206 | 304;
  readonly headers: Readonly<HeaderList>;
  /** Inclusive byte range to stream; undefined when no body is sent (HEAD, 304, empty). */
  readonly body: { readonly start: number; readonly end: number } | undefined;
}

/**
 * A failed precondition (412) or an unsatisfiable range (416, with the size for its
 * Content-Range): the caller answers with a problem, like every other error (docs/http.md, "Static files").
 */
export type FailurePlan = { readonly status: 412 } | { readonly status: 416; readonly size: number };

export type FilePlan = SendPlan | FailurePlan;

/** The Cache-Control of a file from its path segments below the public directory. */
export function cacheControlFor(segments: readonly string[]): string {
  return segments.length > 1 && segments[0] === 'posters' ? IMMUTABLE_CACHE_CONTROL : DEFAULT_CACHE_CONTROL;
}

/**
 * Plans the answer: 412 or 304 from the preconditions (RFC 9110 13.2.2), 206 for one
 * satisfiable range of a GET whose If-Range holds, 416 for an unsatisfiable one, 200 with
 * everything otherwise. HEAD gets the headers GET would get with
 * no range (RFC 9110 14.2: only GET has range handling) and no body.
 */
export function planFileResponse(request: FileRequest, file: FileFacts, now: number): FilePlan {
  const date = formatHttpDate(now);
  const validators = ['etag', file.etag, 'last-modified', formatHttpDate(file.lastModified), 'cache-control', file.cacheControl];
  const outcome = evaluatePreconditions(request, file, now);
  switch (outcome) {
    case 'failed':
      return { status: 412 };
    case 'notModified':
      // RFC 9110 15.4.5: a 304 carries the validators and cache policy, no content metadata.
      return { status: 304, headers: [...validators, 'date', date], body: undefined };
    case 'proceed':
      break;
    default:
      return unreachable(outcome);
  }
  const representation = ['content-type', file.contentType, 'x-content-type-options', 'nosniff', ...validators, 'accept-ranges', 'bytes', 'date', date];
  const applyRange =
    request.method === 'GET' &&
    request.range !== undefined &&
    (request.ifRange === undefined || ifRangeHolds(request.ifRange, file, now));
  const range = applyRange ? decideRange(request.range, file.size) : ({ kind: 'whole' } as const);
  switch (range.kind) {
    case 'unsatisfiable':
      return { status: 416, size: file.size };
    case 'partial': {
      const headers = [
        ...representation,
        'content-range',
        `bytes ${range.start}-${range.end}/${file.size}`,
        'content-length',
        String(range.end - range.start + 1),
      ];
      return { status: 206, headers, body: { start: range.start, end: range.end } };
    }
    case 'whole': {
      const headers = [...representation, 'content-length', String(file.size)];
      const body = request.method === 'GET' && file.size > 0 ? { start: 0, end: file.size - 1 } : undefined;
      return { status: 200, headers, body };
    }
    default:
      return unreachable(range);
  }
}

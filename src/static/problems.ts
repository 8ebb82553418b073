/**
 * The problems of static files: a failed precondition (412), an unsatisfiable range (416), and
 * no file slot free in time (503).
 * The app renders them like every other problem (docs/http.md, "Static files").
 */
import { Problem } from '../core/index.js';
import { decodeUtf8 } from '../http/index.js';

/** A Range value longer than this is cut in the message, so a 16 KiB header cannot bloat a log line. */
export const MAX_RANGE_IN_DETAIL = 200;

/** If-Match or If-Unmodified-Since does not hold for the file (RFC 9110 13.1.1, 13.1.4). */
export class PreconditionFailed extends Problem {
  readonly path: string;
  constructor(rawPath: string) {
    super('precondition_failed', `The precondition on "${rawPath}" failed.`);
    this.path = rawPath;
  }
}

/**
 * The one range asked for starts at or past the end of the file (RFC 9110 15.5.17); the answer
 * says how long the file is with `Content-Range: bytes *\/<size>`.
 */
export class RangeNotSatisfiable extends Problem {
  readonly path: string;
  readonly size: number;
  constructor(range: string, rawPath: string, size: number) {
    super(
      'range_not_satisfiable',
      `The range "${excerpt(decodeUtf8(range))}" cannot be satisfied for "${rawPath}" of ${size} bytes.`,
      { headers: { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' } },
    );
    this.path = rawPath;
    this.size = size;
  }
}

/**
 * No slot for an open file came free within the wait (docs/http.md, "Limits"): the service is busy,
 * not broken, so the request's line is a WARNING, and the client is told when to retry.
 */
export class StaticFilesBusy extends Problem {
  readonly path: string;
  constructor(rawPath: string, retryAfterSeconds: number) {
    super('static_files_busy', `Too many files are being sent; try "${rawPath}" again shortly.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
      reportedElsewhere: true,
    });
    this.path = rawPath;
  }
}

/** At most MAX_RANGE_IN_DETAIL characters of `text`, with `…` when cut; a surrogate pair stays whole. */
function excerpt(text: string): string {
  if (text.length <= MAX_RANGE_IN_DETAIL) return text;
  let end = MAX_RANGE_IN_DETAIL;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate: its pair is cut off
  return `${text.slice(0, end)}…`;
}

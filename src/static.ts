/**
 * Static files: `PUBLIC_DIR` served under `STATIC_BASE`. This is the I/O edge: it finds and
 * opens a file safely, lets the pure planner (`static/plan.ts`) decide the answer, and streams
 * the bytes from the open handle with back-pressure.
 *
 * A path that cannot be served (missing, a directory, a dotfile, outside the directory) is
 * answered exactly like an unrouted path: 404 "No route found". Any other I/O error is thrown,
 * so the app logs it at CRITICAL and answers 500: a permission problem is never a quiet 404.
 */
import { constants, type BigIntStats } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MethodNotAllowed, RouteNotFound } from './problem.js';
import type { RequestContext } from './request.js';
import { lastModifiedOf, strongEntityTag } from './static/conditional.js';
import { contentTypeFor } from './static/mime.js';
import { cacheControlFor, planFileResponse, type FilePlan, type FileRequest } from './static/plan.js';
import { hasDotSegmentBelow, isInside, isSafeSegments } from './static/safe-path.js';

/** The methods a static file allows, in Allow order. */
export const STATIC_METHODS: readonly string[] = ['GET', 'HEAD'];

export interface StaticOptions {
  /** The served directory (absolute, as in Config). */
  readonly publicDir: string;
  /** The controller id of unmatched requests, set on every "No route found" answer. */
  readonly notFoundController: string;
}

/** Answers a request for the decoded `segments` below the static base. */
export type StaticHandler = (
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: readonly string[],
) => Promise<void>;

/** Errors that mean "there is no such file": answered like an unrouted path. */
const MISSING_FILE_CODES = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']);
/** Errors of a client that went away mid-transfer: nothing left to answer or log. */
const CLIENT_GONE_CODES = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);
/**
 * O_NOFOLLOW: the path was resolved already, so a symlink appearing there now is refused.
 * O_NONBLOCK: opening a FIFO must not block a thread until a writer comes (it is then refused
 * as not a regular file); it changes nothing for regular files.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

interface OpenFile {
  readonly handle: FileHandle;
  readonly stats: BigIntStats;
}

/** Builds the handler of the static route for one public directory. */
export function createStaticHandler(options: StaticOptions): StaticHandler {
  const root = resolve(options.publicDir);
  // The real path of the root, kept between requests; a symlinked PUBLIC_DIR is fine.
  let realRoot: string | undefined;

  /** The real root when it contains `real`; looked up again on a miss, as the root may move. */
  async function realRootContaining(real: string): Promise<string | undefined> {
    if (realRoot !== undefined && isInside(realRoot, real)) return realRoot;
    realRoot = await unlessMissing(realpath(root));
    return realRoot !== undefined && isInside(realRoot, real) ? realRoot : undefined;
  }

  async function openPublicFile(segments: readonly string[]): Promise<OpenFile | undefined> {
    if (!isSafeSegments(segments)) return undefined;
    const path = resolve(root, ...segments);
    if (!isInside(root, path)) return undefined;
    // Again on the real path: a symlink may not lead out of the root, nor to a dotfile in it.
    const real = await unlessMissing(realpath(path));
    if (real === undefined) return undefined;
    const base = await realRootContaining(real);
    if (base === undefined || hasDotSegmentBelow(base, real)) return undefined;
    const handle = await unlessMissing(open(real, OPEN_FLAGS));
    if (handle === undefined) return undefined;
    let stats: BigIntStats;
    try {
      stats = await handle.stat({ bigint: true });
    } catch (err) {
      throw err;
    }
    if (stats.isFile()) return { handle, stats };
    await handle.close(); // a directory, FIFO, socket or device
    return undefined;
  }

  return async (ctx, req, res, segments) => {
    const file = await openPublicFile(segments);
    if (file === undefined) {
      ctx.attributes._controller = options.notFoundController;
      throw new RouteNotFound(ctx.method, ctx.rawPath, ctx.referer);
    }
    const { handle, stats } = file;
    let plan: FilePlan;
    try {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        // Like the router's own 405, which names no controller.
        delete ctx.attributes._controller;
        throw new MethodNotAllowed(ctx.method, ctx.rawPath, STATIC_METHODS);
      }
      plan = planFileResponse(fileRequest(ctx.method, req), {
        size: Number(stats.size),
        etag: strongEntityTag(stats.size, stats.mtimeNs),
        lastModified: lastModifiedOf(Number(stats.mtimeMs)),
        contentType: contentTypeFor(segments[segments.length - 1]!),
        cacheControl: cacheControlFor(segments),
      }, ctx.receivedAt);
    } catch (err) {
      throw err;
    }
    if (plan.body === undefined) {
      // Nothing to read: the descriptor is released before the client has its answer.
      await handle.close();
      res.writeHead(plan.status, plan.headers);
      res.end();
      return;
    }
    res.writeHead(plan.status, plan.headers);
    await streamRange(handle, plan.body, res, ctx.rawPath);
  };
}

/**
 * Streams bytes `start`..`end` of an open file to the response; the stream owns the handle
 * and closes it when it ends, fails or is destroyed because the client went away.
 */
async function streamRange(handle: FileHandle, range: NonNullable<FilePlan['body']>, res: ServerResponse, rawPath: string): Promise<void> {
  const stream = handle.createReadStream({ start: range.start, end: range.end });
  try {
    await pipeline(stream, res);
  } catch (err) {
    if (CLIENT_GONE_CODES.has(errorCode(err) ?? '')) return;
    throw err;
  }
  const expected = range.end - range.start + 1;
  if (stream.bytesRead < expected) {
    // The file shrank while being sent: the promised Content-Length cannot be kept.
    throw new Error(`static file ${rawPath} ended after ${stream.bytesRead} of ${expected} bytes`);
  }
}

function fileRequest(method: 'GET' | 'HEAD', req: IncomingMessage): FileRequest {
  const h = req.headers;
  return {
    method,
    ifMatch: h['if-match'],
    ifNoneMatch: h['if-none-match'],
    ifModifiedSince: h['if-modified-since'],
    ifUnmodifiedSince: h['if-unmodified-since'],
    range: h.range,
    ifRange: headerText(h['if-range']),
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Resolves to undefined when the file does not exist; any other failure is thrown. */
async function unlessMissing<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (MISSING_FILE_CODES.has(errorCode(err) ?? '')) return undefined;
    throw err;
  }
}

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

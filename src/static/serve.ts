/**
 * Static files: `PUBLIC_DIR` served under `STATIC_BASE`. This is the I/O edge: it finds and
 * opens a file safely (one realpath, one open, one fstat), lets the pure planner
 * (`static/plan.ts`) decide the answer, and sends the bytes from the open descriptor.
 *
 * A path that cannot be served (missing, a directory, a dotfile, outside the directory) is
 * answered exactly like an unrouted path: 404 "No route found". Any other I/O error is thrown,
 * so the app logs it at CRITICAL and answers 500: a permission problem is never a quiet 404.
 * A failed precondition (412) and an unsatisfiable range (416) are thrown as problems too.
 * A file that gets shorter while it is sent destroys the connection: the promised
 * Content-Length cannot be kept, and the next response must never land inside this body.
 * At most MAX_OPEN_STATIC_FILES files are open at once, a client address's share of them and one
 * per connection (docs/http.md, "Limits"): a file is opened only when its answer is next on its
 * connection, and a request that gets no slot within SLOT_WAIT_MS is answered 503 (`open-files.ts`).
 */
import { close, constants, createReadStream, fstat, open, read, realpath, type BigIntStats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { MethodNotAllowed, RouteNotFound } from '../core/index.js';
import { type RequestContext, writeFramedHead, headerText } from '../http/index.js';
import { lastModifiedOf, strongEntityTag } from './conditional.js';
import { contentTypeFor } from './mime.js';
import { cacheControlFor, planFileResponse, type FileRequest, type SendPlan } from './plan.js';
import { PreconditionFailed, RangeNotSatisfiable, StaticFilesBusy } from './problems.js';
import { classifyFileError } from './file-errors.js';
import { isInside } from '../util/paths.js';
import { hasDotSegmentBelow, isSafeSegments } from './safe-path.js';
import { type FileSlot, OpenFileSlots, SLOT_WAIT_MS } from './open-files.js';
import { errorCode } from '../util/errno.js';
import { STATIC_METHODS } from './route.js';

export { STATIC_METHODS } from './route.js';
export { MAX_OPEN_FILES_PER_CLIENT, MAX_OPEN_STATIC_FILES, SLOT_WAIT_MS } from './open-files.js';

/**
 * Bodies up to one read-stream chunk (64 KiB, the stream's high-water mark) are sent from a
 * single read: the memory a stream would hold anyway, without its machinery on the hot path.
 * Anything larger streams with back-pressure.
 */
export const SINGLE_READ_MAX = 64 * 1024;

export interface StaticOptions {
  /** The served directory (absolute, as in Config). */
  readonly publicDir: string;
  /** Files open for static answers at once (default MAX_OPEN_STATIC_FILES); more wait their turn. */
  readonly maxOpenFiles?: number;
  /** Files open at once for one client address (default MAX_OPEN_FILES_PER_CLIENT). */
  readonly maxOpenFilesPerClient?: number;
  /** How long a request waits for a slot before a 503 (default SLOT_WAIT_MS). */
  readonly slotWaitMs?: number;
}

/** Answers a request for the decoded `segments` below the static base. */
export type StaticHandler = (
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  segments: readonly string[],
) => Promise<void>;

/** Errors of a client that went away mid-transfer: nothing left to answer or log. */
const CLIENT_GONE_CODES: ReadonlySet<string> = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);
/**
 * O_NOFOLLOW: the path was resolved already, so a symlink appearing there now is refused.
 * O_NONBLOCK: opening a FIFO must not block a thread until a writer comes (it is then refused
 * as not a regular file); it changes nothing for regular files. O_NOCTTY: a terminal never
 * becomes ours.
 */
const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What opening a file gives when its client went away while the request waited. */
const GONE = Symbol('client gone');

/** A file open for an answer, and the slot it holds until it is closed. */
interface OpenFile {
  readonly fd: number;
  readonly stats: BigIntStats;
  readonly slot: FileSlot;
}

/** Builds the handler of the static route for one public directory. */
export function createStaticHandler(options: StaticOptions): StaticHandler {
  const slots = new OpenFileSlots(options.maxOpenFiles, options.maxOpenFilesPerClient);
  const files = new PublicDirectory(resolve(options.publicDir), slots, options.slotWaitMs ?? SLOT_WAIT_MS);
  return async (ctx, req, res, segments) => {
    const file = await files.open(segments, ctx, res);
    if (file === GONE) return; // nobody left to answer
    if (file === undefined) throw new RouteNotFound(ctx.method, ctx.rawPath, ctx.referer);
    let plan: SendPlan;
    try {
      plan = planAnswer(ctx, req, segments, file.stats);
    } catch (err) {
      release(file);
      throw err;
    }
    await sendPlan(file, plan, res, ctx.rawPath);
  };
}

/**
 * The answer to a file request: the planner's plan, or the problem it comes to (a 405, 412 or
 * 416), thrown.
 */
function planAnswer(ctx: RequestContext, req: IncomingMessage, segments: readonly string[], stats: BigIntStats): SendPlan {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new MethodNotAllowed(ctx.method, ctx.rawPath, STATIC_METHODS);
  const facts = {
    size: Number(stats.size),
    etag: strongEntityTag(stats.size, stats.mtimeNs),
    lastModified: lastModifiedOf(Number(stats.mtimeMs), ctx.receivedAt),
    contentType: contentTypeFor(segments[segments.length - 1]!),
    cacheControl: cacheControlFor(segments),
  };
  const planned = planFileResponse(fileRequest(ctx.method, req), facts, ctx.receivedAt);
  if (planned.status === 412) throw new PreconditionFailed(ctx.rawPath);
  if (planned.status === 416) throw new RangeNotSatisfiable(headerText(req.headers.range) ?? '', ctx.rawPath, planned.size);
  return planned;
}

/**
 * The public directory: finds and opens its files safely, at most as many at once as `slots`
 * allows.
 */
class PublicDirectory {
  readonly #root: string;
  readonly #slots: OpenFileSlots;
  readonly #slotWaitMs: number;
  // The real path of the root, kept between requests; a symlinked PUBLIC_DIR is fine.
  #realRoot: string | undefined;

  constructor(root: string, slots: OpenFileSlots, slotWaitMs: number) {
    this.#root = root;
    this.#slots = slots;
    this.#slotWaitMs = slotWaitMs;
  }

  /** The regular file at `segments`, open; undefined when it cannot be served, GONE when the client is. */
  async open(segments: readonly string[], ctx: RequestContext, res: ServerResponse): Promise<OpenFile | undefined | typeof GONE> {
    if (!isSafeSegments(segments)) return undefined;
    const path = resolve(this.#root, ...segments);
    if (!isInside(this.#root, path)) return undefined;
    // Again on the real path: a symlink may not lead out of the root, nor to a dotfile in it.
    const real = await unlessMissing(realPath(path));
    if (real === undefined) return undefined;
    const base = await this.#realRootContaining(real);
    if (base === undefined || hasDotSegmentBelow(base, real)) return undefined;
    const counted = await this.#openCounted(real, ctx, res);
    if (counted === undefined || counted === GONE) return counted;
    let stats: BigIntStats;
    try {
      stats = await statFile(counted.fd);
    } catch (err) {
      release(counted);
      throw err;
    }
    if (stats.isFile()) return { ...counted, stats };
    release(counted); // a directory, FIFO, socket or device
    return undefined;
  }

  /** The real root when it contains `real`; looked up again on a miss, as the root may move. */
  async #realRootContaining(real: string): Promise<string | undefined> {
    if (this.#realRoot !== undefined && isInside(this.#realRoot, real)) return this.#realRoot;
    this.#realRoot = await unlessMissing(realPath(this.#root));
    return this.#realRoot !== undefined && isInside(this.#realRoot, real) ? this.#realRoot : undefined;
  }

  /**
   * Opens `real` once the answer is next on its connection and a slot is free for the client;
   * undefined when it is missing, GONE when the client is. No slot within the wait is a 503.
   */
  async #openCounted(real: string, ctx: RequestContext, res: ServerResponse): Promise<Omit<OpenFile, 'stats'> | undefined | typeof GONE> {
    if (!(await nextOnConnection(res))) return GONE;
    let slot = this.#slots.tryTake(ctx.clientIp);
    if (slot === undefined) {
      slot = await this.#slots.take(ctx.clientIp, this.#slotWaitMs);
      if (slot === undefined) throw new StaticFilesBusy(ctx.rawPath, Math.ceil(this.#slotWaitMs / 1000));
      // The client may have gone while its request waited for a slot: no file to open for it.
      if (res.destroyed || res.req.socket.destroyed) {
        slot.give();
        return GONE;
      }
    }
    try {
      const fd = await unlessMissing(openFile(real));
      if (fd === undefined) slot.give();
      return fd === undefined ? undefined : { fd, slot };
    } catch (err) {
      slot.give();
      throw err;
    }
  }
}

/**
 * Resolves once `res` is the answer its connection sends next (Node queues the answers of
 * pipelined requests and hands each the connection in turn): true then, false if the request
 * was aborted first. So a connection holds one file open at a time, however many requests it
 * pipelines.
 */
function nextOnConnection(res: ServerResponse): Promise<boolean> {
  if (res.socket !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onSocket = () => {
      res.req.off('close', onAborted);
      resolve(true);
    };
    const onAborted = () => {
      res.off('socket', onSocket);
      resolve(false);
    };
    res.once('socket', onSocket);
    res.req.once('close', onAborted);
  });
}

/** Closes a file; its slot is free once the system has closed it. */
function release(file: Omit<OpenFile, 'stats'>): void {
  closeFile(file.fd, file.slot.give);
}

/**
 * Sends a planned answer and gives up the descriptor: no read for a body-less answer, one read
 * for a body of at most SINGLE_READ_MAX bytes, a stream for anything larger.
 */
async function sendPlan(file: OpenFile, plan: SendPlan, res: ServerResponse, rawPath: string): Promise<void> {
  const body = plan.body;
  if (body === undefined || body.end - body.start + 1 <= SINGLE_READ_MAX) {
    let bytes: Buffer | undefined;
    try {
      if (body !== undefined) bytes = await readRange(file.fd, body.start, body.end - body.start + 1, rawPath);
    } finally {
      release(file);
    }
    const withBody = writeFramedHead(res, plan.status, plan.headers);
    res.end(withBody ? bytes : undefined);
    return;
  }
  if (!writeFramedHead(res, plan.status, plan.headers)) {
    release(file);
    res.end();
    return;
  }
  await streamRange(file.fd, body, res, rawPath, file.slot.give);
}

/**
 * Streams bytes `start`..`end` of an open file to the response with back-pressure; the stream
 * owns the descriptor and closes it when it ends, fails or is destroyed because the client
 * went away. The response is ended only once every promised byte was read; short of that the
 * connection is destroyed (before the error reaches the app, which could no longer reach the
 * socket of a finished response) and the shortfall is thrown to be logged. `closed` is told
 * once the stream has closed the descriptor.
 */
async function streamRange(
  fd: number,
  range: NonNullable<SendPlan['body']>,
  res: ServerResponse,
  rawPath: string,
  closed: () => void,
): Promise<void> {
  // With `fd` given, the path argument is not used.
  const stream = createReadStream('', { fd, start: range.start, end: range.end, autoClose: true });
  stream.once('close', closed);
  try {
    await pipeline(stream, res, { end: false });
  } catch (err) {
    if (CLIENT_GONE_CODES.has(errorCode(err) ?? '')) return;
    throw err;
  }
  const expected = range.end - range.start + 1;
  if (stream.bytesRead < expected) {
    res.destroy();
    throw shrank(rawPath, stream.bytesRead, expected);
  }
  res.end();
}

/** Reads `length` bytes from `position` into a buffer of that size (at most SINGLE_READ_MAX). */
async function readRange(fd: number, position: number, length: number, rawPath: string): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = await readInto(fd, buffer, filled, position + filled);
    if (n === 0) throw shrank(rawPath, filled, length);
    filled += n;
  }
  return buffer;
}

/** The file got shorter since fstat: the promised Content-Length cannot be kept. */
function shrank(rawPath: string, got: number, expected: number): Error {
  return new Error(`static file ${rawPath} ended after ${got} of ${expected} bytes`);
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


/** Resolves to undefined when the file does not exist; any other failure is thrown. */
async function unlessMissing<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (classifyFileError(errorCode(err)) === 'missing') return undefined;
    throw err;
  }
}


// The callback API on plain descriptors: lighter per call than FileHandle, which matters on a
// path of four file-system calls per request.

function realPath(path: string): Promise<string> {
  return new Promise((ok, fail) => realpath.native(path, (err, real) => (err ? fail(err) : ok(real))));
}

function openFile(path: string): Promise<number> {
  return new Promise((ok, fail) => open(path, OPEN_FLAGS, (err, fd) => (err ? fail(err) : ok(fd))));
}

function statFile(fd: number): Promise<BigIntStats> {
  return new Promise((ok, fail) => fstat(fd, { bigint: true }, (err, stats) => (err ? fail(err) : ok(stats))));
}

function readInto(fd: number, buffer: Buffer, offset: number, position: number): Promise<number> {
  return new Promise((ok, fail) =>
    read(fd, buffer, offset, buffer.length - offset, position, (err, n) => (err ? fail(err) : ok(n))),
  );
}

/**
 * Closes a descriptor without waiting: the answer need not wait for it, and the number is
 * never used again. Closing a read-only descriptor of a regular file cannot lose data, so
 * there is nothing to report if it fails; `closed` is told either way.
 */
function closeFile(fd: number, closed: () => void): void {
  close(fd, () => closed());
}

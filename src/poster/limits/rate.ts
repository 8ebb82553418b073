/**
 * POSTER_RATE_LIMIT: poster requests a token subject may make per minute (docs/posters-and-api.md, "Rate limit and storage"), counted in
 * files under `<VAR_DIR>/poster-rate/`, so the count holds across restarts and is shared by every
 * process (cluster workers, other instances) that shares VAR_DIR.
 *
 * Fixed windows of RATE_WINDOW_MS. A subject's window is one file, `<digest>.<window index>`,
 * made of fixed-size records. A request opens it with O_APPEND; if it already holds `limit`
 * records, the answer is 429 at once; otherwise the request appends one record with a random id
 * and reads the first `limit` records back: it is admitted when its id is among them. O_APPEND
 * gives the records one order that every process sees, so exactly the first `limit` appenders of a
 * window are admitted, however many processes race; a racer that lost leaves a record past the
 * first `limit`, which admits nobody. The file holds `limit` records plus at most one per request
 * that raced past the first check, and files of past windows are deleted.
 *
 * A fixed window lets a subject make up to twice the limit across a window's end; the price of
 * an exact count with nothing but appends.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Problem } from '../../core/index.js';
import type { RateLimiter } from './limits.js';

/** The limit counts requests per this many milliseconds. */
export const RATE_WINDOW_MS = 60_000;
/** Random bytes of a record's id, written as hex. */
const RECORD_ID_BYTES = 8;
/** A record: the hex id and a newline. */
export const RATE_RECORD_BYTES = RECORD_ID_BYTES * 2 + 1;

/** A subject past its limit; `Retry-After` gives the whole seconds until its window ends. */
export class TooManyRequests extends Problem {
  constructor(limit: number, retryAfterSeconds: number) {
    super('too_many_requests', `This token's subject has made its ${limit} poster requests of the minute (POSTER_RATE_LIMIT); try again in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

/** The window `now` (milliseconds) falls in, and when it ends. */
export function rateWindow(now: number): { readonly index: number; readonly endsAt: number } {
  const index = Math.floor(now / RATE_WINDOW_MS);
  return { index, endsAt: (index + 1) * RATE_WINDOW_MS };
}

/** Whole seconds from `now` until `endsAt`, at least 1 (RFC 9110 10.2.3 delay-seconds). */
export function retryAfterSeconds(now: number, endsAt: number): number {
  return Math.max(1, Math.ceil((endsAt - now) / 1000));
}

/** A file name for a subject: a digest, so any subject text is a safe, bounded name. */
export function subjectFileStem(subject: string): string {
  return createHash('sha256').update(subject).digest('hex').slice(0, 32);
}

/** Whether the first `limit` records of `head` include `record`. */
export function isAdmitted(head: Buffer, record: string, limit: number): boolean {
  const records = Math.min(limit, Math.floor(head.length / RATE_RECORD_BYTES));
  for (let i = 0; i < records; i++) {
    if (head.toString('latin1', i * RATE_RECORD_BYTES, (i + 1) * RATE_RECORD_BYTES) === record) return true;
  }
  return false;
}

/** The window index of one of our files (`<32 hex>.<index>`), undefined for any other name. */
export function windowOfFile(name: string): number | undefined {
  const dot = name.indexOf('.');
  if (dot !== 32 || !/^[0-9a-f]{32}\.\d{1,15}$/.test(name)) return undefined;
  return Number(name.slice(dot + 1));
}

export interface PosterRateLimiterOptions {
  /** `<VAR_DIR>/poster-rate`. */
  readonly dir: string;
  /** Requests per window and subject; at least 1 (0, "off", means no limiter at all). */
  readonly limit: number;
  readonly clock: () => number;
}

/** Counts poster requests per subject in files shared by every process; see the module comment. */
export class PosterRateLimiter implements RateLimiter {
  readonly #dir: string;
  readonly #limit: number;
  readonly #clock: () => number;
  /** The window whose older files this process last deleted. */
  #sweptWindow = -1;

  constructor(options: PosterRateLimiterOptions) {
    if (!Number.isSafeInteger(options.limit) || options.limit < 1) throw new TypeError('the rate limit must be a positive integer');
    this.#dir = options.dir;
    this.#limit = options.limit;
    this.#clock = options.clock;
  }

  /** Counts one request of `subject`, or throws TooManyRequests when its window is full. */
  async take(subject: string): Promise<void> {
    const now = this.#clock();
    const window = rateWindow(now);
    await this.#sweep(window.index);
    const file = await open(join(this.#dir, `${subjectFileStem(subject)}.${window.index}`), 'a+');
    try {
      const full = this.#limit * RATE_RECORD_BYTES;
      if ((await file.stat()).size >= full) throw new TooManyRequests(this.#limit, retryAfterSeconds(now, window.endsAt));
      const record = `${randomBytes(RECORD_ID_BYTES).toString('hex')}\n`;
      await file.write(record); // O_APPEND: at the end, whatever others appended meanwhile
      const head = Buffer.alloc(full);
      const { bytesRead } = await file.read(head, 0, full, 0);
      if (!isAdmitted(head.subarray(0, bytesRead), record, this.#limit)) {
        throw new TooManyRequests(this.#limit, retryAfterSeconds(now, window.endsAt));
      }
    } finally {
      await file.close();
    }
  }

  /** Once per window: creates the directory and deletes files of windows before the last one. */
  async #sweep(index: number): Promise<void> {
    if (this.#sweptWindow === index) return;
    await mkdir(this.#dir, { recursive: true });
    for (const name of await readdir(this.#dir)) {
      const windowOf = windowOfFile(name);
      // The previous window stays: a process whose clock is a little behind may still use it.
      if (windowOf !== undefined && windowOf < index - 1) await rm(join(this.#dir, name), { force: true });
    }
    this.#sweptWindow = index;
  }
}

/**
 * The daily file sink behind both logs: `<dir>/<stem>-<YYYY-MM-DD>.log`, the date local to the
 * log time zone, the stem saying which log (`prod` for the error log, `prod-access` for the
 * access log). The sink takes whole lines; what they look like, its own notices included, is the
 * kind's business (see DailyFileKind).
 *
 * Lines are queued in order and appended in batches of whole lines with O_APPEND, so several
 * processes can share a file without interleaving inside a line. The file for each line is
 * derived from the clock when it is logged (the next day boundary is cached), so a restart, a
 * sleeping laptop or a clock step never writes to the wrong day. Files are never renamed.
 *
 * Bounds: the queue (lines dropped past it are counted, and one line says how many) and one
 * day's file (past `maxBytes` lines are counted, and the next day's file starts with how many).
 * A day's file deleted or renamed under the sink is noticed within a second of the next write.
 *
 * This is the I/O shell: it opens, writes, retries and tells stderr. What goes where, what the
 * cap refuses and what is counted is the pure BatchPlanner's (`batch-planner.ts`): the shell
 * takes a batch from it, plans the batch against the file's size, writes the plan's bytes and
 * gives back how many reached the file.
 */
import { closeSync, mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { errorCode } from '../util/errno.js';
import { BatchPlanner, type Batch, type DailyFileKind, type LineCounts, type WritePlan } from './batch-planner.js';
import { createTimestamper, formatLine } from './format.js';
import { appendAllSync, OpenLogFile, openForAppendSync, type WriteBytes, type WriteOutcome } from './open-file.js';
import { Retention } from './retention.js';
import { ZonedTime, zonedTimeOf } from './zoned-time.js';

/** Where a daily file sink writes, its bounds, and the hooks tests replace. */
export interface DailyFileSinkOptions {
  readonly dir: string;
  readonly timeZone: string;
  /** The zone's reader, when the caller made one for its own timestamps (default: made from timeZone). */
  readonly zoned?: ZonedTime;
  readonly maxFiles: number;
  /** Bytes one day's file may reach; later lines of that day are counted, not written. */
  readonly maxBytes: number;
  readonly clock?: () => number;
  /** Where the one-line notices of an unwritable or full log go (default: stderr). */
  readonly warn?: (line: string) => void;
  /** How long to wait before trying an unwritable directory again (default 30 s). */
  readonly retryMs?: number;
  /** How long the first queued line waits for company before a write (default 20 ms). */
  readonly flushDelayMs?: number;
  /** Queued bytes beyond which new lines are counted and dropped (default 16 MiB). */
  readonly maxQueuedBytes?: number;
  /** The write call behind every append (default the file handle's); tests fill a disk with it. */
  readonly writeBytes?: WriteBytes;
}

/** The options the logs take: the sink's, with the byte cap optional (default: LOG_MAX_BYTES's, 100 MiB). */
export type DailyFileOptions = Omit<DailyFileSinkOptions, 'maxBytes'> & { readonly maxBytes?: number };

const DEFAULT_RETRY_MS = 30_000;
const DEFAULT_FLUSH_DELAY_MS = 20;
const DEFAULT_MAX_QUEUED_BYTES = 16 << 20;

/**
 * Whole lines, queued in order, appended to the file of the day they were given on. Created, it
 * applies retention once; it never throws for an unwritable directory.
 */
export class DailyFileSink {
  readonly #dir: string;
  readonly #what: string;
  readonly #retryMs: number;
  readonly #flushDelayMs: number;
  readonly #clock: () => number;
  readonly #warn: (line: string) => void;
  readonly #stamp: (instant: number) => string;
  readonly #planner: BatchPlanner;
  readonly #retention: Retention;
  readonly #writeBytes: WriteBytes | undefined;
  #open: OpenLogFile | undefined;
  #pumping: Promise<void> | undefined;
  /** A batch taken from the queue whose file is still opening: flushSync writes it instead. */
  #awaitingFile: Batch | undefined;
  /** Writing is paused until the retry timer fires. */
  #failing = false;
  /** A failure was reported on stderr and no write has succeeded since. */
  #reported = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: DailyFileSinkOptions, kind: DailyFileKind) {
    this.#dir = options.dir;
    this.#what = kind.what;
    this.#retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
    this.#flushDelayMs = options.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    this.#clock = options.clock ?? Date.now;
    this.#warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
    const zoned = zonedTimeOf(options.zoned ?? options.timeZone);
    this.#stamp = createTimestamper(zoned);
    const maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.#planner = new BatchPlanner({ dir: options.dir, kind, zoned, maxBytes: options.maxBytes, maxQueuedBytes });
    this.#writeBytes = options.writeBytes;
    this.#retention = new Retention(this.#dir, kind.stem, options.maxFiles, this.#what, this.#warn);
    // Retention at start-up, synchronously so that a starting service is in a known state.
    try {
      mkdirSync(this.#dir, { recursive: true });
      this.#retention.pruneSync(this.#planner.dateOf(this.#clock()));
    } catch (err) {
      this.#reportFailure(err as NodeJS.ErrnoException);
    }
  }

  /** The sink's clock: the instant a line is given decides its file. */
  now(): number {
    return this.#clock();
  }

  /**
   * Queues `line` (whole, newline included), given at `instant` (read from now()); `bytes` is
   * its UTF-8 size when the caller knows it (the access log does, for most lines).
   */
  append(instant: number, line: string, bytes: number = Buffer.byteLength(line)): void {
    this.#planner.enqueue(instant, line, bytes);
    if (this.#closed) this.flushSync();
    else this.#schedule();
  }

  /** Bytes of the lines waiting to be written. */
  get queuedBytes(): number {
    return this.#planner.queuedBytes;
  }

  /** Entries written and dropped so far. */
  lineCounts(): LineCounts {
    return this.#planner.lineCounts();
  }

  /** Resolves once every line given so far is written, or writing is paused by a failure. */
  async flush(): Promise<void> {
    while (this.#pumping) await this.#pumping;
    if (this.#planner.queuedLines > 0 && this.#failing) return; // nothing more can be written now
    if (this.#planner.queuedLines > 0) {
      this.#schedule();
      await this.flush();
    }
  }

  /** Writes what is queued synchronously: for the process's `exit` event only. */
  flushSync(): void {
    if (this.#awaitingFile !== undefined) {
      this.#planner.putBack(this.#awaitingFile);
      this.#awaitingFile = undefined;
    }
    if (this.#planner.queuedLines > 0) {
      try {
        mkdirSync(this.#dir, { recursive: true });
        while (this.#planner.queuedLines > 0) this.#writeBatchSync(this.#planner.takeBatch());
      } catch (err) {
        const lost = this.#planner.dropQueued();
        this.#warn(`${this.#what}: ${lost} line${lost === 1 ? '' : 's'} not written at exit (${errorCode(err) ?? String(err)})`);
      }
    }
    // No next day's file will tell of the full day: stderr does.
    this.#tellCapDropsOnStderr();
  }

  /** Flushes, then closes the file; later lines are written synchronously. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    if (this.#open) {
      await this.#open.close();
      this.#open = undefined;
    }
    this.#tellCapDropsOnStderr();
  }

  #schedule(): void {
    if (this.#pumping || this.#failing) return;
    // Waiting a little gathers a flood's lines into few large writes instead of many small ones.
    this.#pumping = new Promise<void>((resolve) => setTimeout(resolve, this.#flushDelayMs))
      .then(() => this.#pump())
      .finally(() => {
        this.#pumping = undefined;
        if (this.#planner.queuedLines > 0 && !this.#failing) this.#schedule();
      });
  }

  /**
   * Writes one batch, and more only while a whole batch is waiting. Lines given during a write
   * wait for the next gathering delay: writing them at once made a busy server write nearly
   * every line on its own, one thread-pool round trip each.
   */
  async #pump(): Promise<void> {
    if (this.#planner.queuedLines === 0 || this.#failing) return;
    do {
      const batch = this.#planner.takeBatch();
      this.#awaitingFile = batch;
      let file: OpenLogFile;
      try {
        file = await this.#fileFor(batch.date);
      } catch (err) {
        if (this.#awaitingFile === batch) this.#planner.putBack(batch);
        this.#awaitingFile = undefined;
        this.#reportFailure(err as NodeJS.ErrnoException);
        continue;
      }
      if (this.#awaitingFile !== batch) continue; // flushSync wrote it while the file opened
      this.#awaitingFile = undefined;
      await this.#writeBatch(file, batch);
    } while (this.#planner.fullBatchWaiting && !this.#failing);
  }

  /** Plans `batch` against its open file, writes it and books it; a failure pauses writing until a retry. */
  async #writeBatch(file: OpenLogFile, batch: Batch): Promise<void> {
    const plan = this.#planner.plan(batch, file);
    const error = this.#book(plan, await file.write(plan.data));
    if (error !== undefined) this.#reportFailure(error as NodeJS.ErrnoException);
    else if (this.#reported) {
      this.#reported = false;
      this.#warn(`${this.#what}: writing to ${this.#dir} again`);
    }
  }

  /** The same, synchronously at exit: a failure is thrown, the lines not written back in the queue. */
  #writeBatchSync(batch: Batch): void {
    let file: { path: string; fd: number; size: number };
    try {
      file = openForAppendSync(this.#planner.pathOf(batch.date));
    } catch (err) {
      this.#planner.putBack(batch);
      throw err;
    }
    try {
      const plan = this.#planner.plan(batch, file);
      const error = this.#book(plan, appendAllSync(file.fd, plan.data));
      if (error !== undefined) throw error;
    } finally {
      closeSync(file.fd);
    }
  }

  /**
   * Gives the planner how far a write of `plan` got (what is not in the file goes back in the
   * queue), says on stderr when a day's file became full; returns the write's error.
   */
  #book(plan: WritePlan, outcome: WriteOutcome): unknown {
    const announcement = this.#planner.settle(plan, outcome.written);
    if (announcement !== undefined) this.#warn(announcement);
    return outcome.error;
  }

  /**
   * The open file of `date`, checked at most once a second: a deleted or renamed file
   * is replaced by a fresh one of the day's name, which (like a truncated one) takes lines again.
   */
  async #fileFor(date: string): Promise<OpenLogFile> {
    const now = this.#clock();
    const current = this.#open;
    if (current?.date === date) {
      const found = await current.check(now);
      if (found !== 'same') this.#planner.fileRenewed(date);
      if (found !== 'replaced') return current;
    }
    await mkdir(this.#dir, { recursive: true });
    const opened = await OpenLogFile.open(date, this.#planner.pathOf(date), now, this.#writeBytes);
    this.#open = opened;
    if (current) await current.close();
    // A new day's file (or the first): keep only the newest maxFiles, this one included.
    if (current?.date !== date) await this.#retention.prune(date);
    return opened;
  }

  /** Stderr takes the usual text lines, whatever the file's format. */
  #tellCapDropsOnStderr(): void {
    const notice = this.#planner.takeCapNotice();
    if (notice !== undefined) this.#warn(formatLine(this.#stamp(this.#clock()), 'app', 'WARNING', notice).trimEnd());
  }

  /** Closes the file, says so once on stderr, and pauses writing until the planner's retry delay is over. */
  #reportFailure(err: NodeJS.ErrnoException): void {
    if (this.#open) {
      void this.#open.close();
      this.#open = undefined;
    }
    if (!this.#reported) {
      this.#reported = true;
      this.#warn(
        `${this.#what}: cannot write to ${this.#dir} (${err.code ?? err.message}); the service keeps answering and retries every ${this.#retryMs / 1000} s`,
      );
    }
    this.#failing = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#failing = false;
      this.#schedule();
    }, this.#planner.retryDelay(this.#clock(), this.#retryMs));
    this.#retryTimer.unref();
  }
}

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
 */
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_LOG_MAX_BYTES } from '../config/index.js';
import { createTimestamper, formatLine } from './format.js';
import { DayCap } from './day-cap.js';
import { countEntries, LineQueue, writtenPart, type QueuedLine } from './queue.js';
import { OpenLogFile, type WriteBytes } from './open-file.js';
import { Retention } from './retention.js';
import { dailyLogFileName, LocalDates } from './rotation.js';
import { errorCode } from '../util/errno.js';
import { ZonedTime, zonedTimeOf } from './zoned-time.js';

/** Where a daily file sink writes, its bounds, and the hooks tests replace. */
export interface DailyFileSinkOptions {
  readonly dir: string;
  readonly timeZone: string;
  /** The zone's reader, when the caller made one for its own timestamps (default: made from timeZone). */
  readonly zoned?: ZonedTime;
  readonly maxFiles: number;
  /** Bytes one day's file may reach; later lines of that day are counted, not written (default 100 MiB). */
  readonly maxBytes?: number;
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

/** What differs between the logs written by a sink: the files' names and how its own notices read. */
export interface DailyFileKind {
  /** `prod` or `prod-access`: the files are `<stem>-<YYYY-MM-DD>.log`, and retention sees no other. */
  readonly stem: string;
  /** `log` or `access log`: the name the sink's messages give its lines and its stderr notices start with. */
  readonly what: string;
  /** The sink's own notice (lines dropped), as one whole line of the file's format, newline included. */
  notice(instant: number, message: string): string;
}

/**
 * Entries given to a sink that reached its files, and those lost: refused by the full queue,
 * past a day's LOG_MAX_BYTES, or still unwritable at exit. The sink's own notices are not
 * counted: written + dropped + still queued = entries given.
 */
export interface LineCounts {
  readonly written: number;
  readonly dropped: number;
}

const DEFAULT_RETRY_MS = 30_000;
const DEFAULT_FLUSH_DELAY_MS = 20;
const DEFAULT_MAX_QUEUED_BYTES = 16 << 20;
/** The most one write call carries. */
const MAX_BATCH_BYTES = 1 << 20;

/**
 * What to write for one batch: a prefix (a newline ending a line an earlier write cut, a notice
 * owed for an earlier day), then the lines under the cap.
 */
interface WritePlan {
  readonly data: Buffer;
  readonly kept: number;
  readonly withNotice: boolean;
  readonly prefixBytes: number;
}

/**
 * Whole lines, queued in order, appended to the file of the day they were given on. Created, it
 * applies retention once; it never throws for an unwritable directory.
 */
export class DailyFileSink {
  readonly #dir: string;
  readonly #kind: DailyFileKind;
  readonly #stem: string;
  readonly #what: string;
  readonly #retryMs: number;
  readonly #flushDelayMs: number;
  readonly #clock: () => number;
  readonly #warn: (line: string) => void;
  readonly #stamp: (instant: number) => string;
  readonly #dates: LocalDates;
  readonly #queue: LineQueue;
  /** Lines refused by the full queue since the last one accepted. */
  #queueDropped = 0;
  #open: OpenLogFile | undefined;
  #pumping: Promise<void> | undefined;
  /** A batch taken from the queue whose file is still opening: flushSync writes it instead. */
  #awaitingFile: QueuedLine[] | undefined;
  /** Writing is paused until the retry timer fires. */
  #failing = false;
  /** A failure was reported on stderr and no write has succeeded since. */
  #reported = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #cap: DayCap;
  /** The file whose last line a failed write cut: the next write to it starts on a new line. */
  #cutPath: string | undefined;
  readonly #writeBytes: WriteBytes | undefined;
  readonly #retention: Retention;
  #written = 0;
  #dropped = 0;

  constructor(options: DailyFileSinkOptions, kind: DailyFileKind) {
    this.#dir = options.dir;
    this.#kind = kind;
    this.#stem = kind.stem;
    this.#what = kind.what;
    this.#cap = new DayCap(options.maxBytes ?? DEFAULT_LOG_MAX_BYTES, kind.what);
    this.#retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
    this.#flushDelayMs = options.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    this.#clock = options.clock ?? Date.now;
    this.#warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
    const zoned = zonedTimeOf(options.zoned ?? options.timeZone);
    this.#stamp = createTimestamper(zoned);
    this.#dates = new LocalDates(zoned);
    this.#queue = new LineQueue(options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES);
    this.#writeBytes = options.writeBytes;
    this.#retention = new Retention(this.#dir, this.#stem, options.maxFiles, this.#what, this.#warn);
    // Retention at start-up, synchronously so that a starting service is in a known state.
    try {
      mkdirSync(this.#dir, { recursive: true });
      this.#retention.pruneSync(this.#dates.dateOf(this.#clock()));
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
    this.#enqueue(instant, line, bytes);
    if (this.#closed) this.flushSync();
    else this.#schedule();
  }

  /** Bytes of the lines waiting to be written. */
  get queuedBytes(): number {
    return this.#queue.bytes;
  }

  /** Entries written and dropped so far. */
  lineCounts(): LineCounts {
    return { written: this.#written, dropped: this.#dropped };
  }

  /** Resolves once every line given so far is written, or writing is paused by a failure. */
  async flush(): Promise<void> {
    while (this.#pumping) await this.#pumping;
    if (this.#queue.length > 0 && this.#failing) return; // nothing more can be written now
    if (this.#queue.length > 0) {
      this.#schedule();
      await this.flush();
    }
  }

  /** Writes what is queued synchronously: for the process's `exit` event only. */
  flushSync(): void {
    if (this.#awaitingFile !== undefined) {
      this.#queue.putBack(this.#awaitingFile);
      this.#awaitingFile = undefined;
    }
    if (this.#queue.length > 0) {
      try {
        mkdirSync(this.#dir, { recursive: true });
        while (this.#queue.length > 0) this.#writeBatchSync(this.#queue.takeBatch(MAX_BATCH_BYTES));
      } catch (err) {
        const lost = this.#queue.clear();
        this.#dropped += countEntries(lost, 0, lost.length);
        this.#warn(`${this.#what}: ${lost.length} line${lost.length === 1 ? '' : 's'} not written at exit (${errorCode(err) ?? String(err)})`);
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

  #enqueue(instant: number, text: string, bytes: number): void {
    if (!this.#queue.fits(bytes)) {
      this.#queueDropped++;
      this.#dropped++;
      return;
    }
    const date = this.#dates.dateOf(instant);
    if (this.#queueDropped > 0) {
      const message = `${this.#queueDropped} ${this.#what} lines dropped: the ${this.#what} queue was full`;
      const notice = this.#kind.notice(instant, message);
      this.#queueDropped = 0;
      this.#queue.push({ date, instant, text: notice, bytes: Buffer.byteLength(notice), notice: true });
    }
    this.#queue.push({ date, instant, text, bytes, notice: false });
  }

  #schedule(): void {
    if (this.#pumping || this.#failing) return;
    // Waiting a little gathers a flood's lines into few large writes instead of many small ones.
    this.#pumping = new Promise<void>((resolve) => setTimeout(resolve, this.#flushDelayMs))
      .then(() => this.#pump())
      .finally(() => {
        this.#pumping = undefined;
        if (this.#queue.length > 0 && !this.#failing) this.#schedule();
      });
  }

  /**
   * Writes one batch, and more only while a whole batch is waiting. Lines given during a write
   * wait for the next gathering delay: writing them at once made a busy server write nearly
   * every line on its own, one thread-pool round trip each.
   */
  async #pump(): Promise<void> {
    if (this.#queue.length === 0 || this.#failing) return;
    do {
      const batch = this.#queue.takeBatch(MAX_BATCH_BYTES);
      this.#awaitingFile = batch;
      let file: OpenLogFile;
      try {
        file = await this.#fileFor(batch[0]!.date);
      } catch (err) {
        if (this.#awaitingFile === batch) this.#queue.putBack(batch);
        this.#awaitingFile = undefined;
        this.#reportFailure(err as NodeJS.ErrnoException);
        continue;
      }
      if (this.#awaitingFile !== batch) continue; // flushSync wrote it while the file opened
      this.#awaitingFile = undefined;
      await this.#writeBatch(file, batch);
    } while (this.#queue.bytes >= MAX_BATCH_BYTES && !this.#failing);
  }

  async #writeBatch(file: OpenLogFile, batch: QueuedLine[]): Promise<void> {
    let unwritten = batch;
    try {
      const plan = this.#plan(batch, file.size, file.path);
      const outcome = await file.write(plan.data);
      if (outcome.error !== undefined) {
        unwritten = this.#dropWritten(batch, plan, outcome.written, file.path);
        throw outcome.error;
      }
      this.#commit(batch, plan, file.path);
      if (this.#reported) {
        this.#reported = false;
        this.#warn(`${this.#what}: writing to ${this.#dir} again`);
      }
    } catch (err) {
      // Put what is not in the file back in front, keep answering, say so once, retry later.
      this.#queue.putBack(unwritten);
      this.#reportFailure(err as NodeJS.ErrnoException);
    }
  }

  #writeBatchSync(batch: QueuedLine[]): void {
    const path = join(this.#dir, dailyLogFileName(this.#stem, batch[0]!.date));
    let unwritten = batch;
    try {
      const fd = openSync(path, 'a');
      try {
        const plan = this.#plan(batch, fstatSync(fd).size, path);
        let offset = 0;
        try {
          while (offset < plan.data.byteLength) offset += writeSync(fd, plan.data, offset);
        } catch (err) {
          unwritten = this.#dropWritten(batch, plan, offset, path);
          throw err;
        }
        this.#commit(batch, plan, path);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      this.#queue.putBack(unwritten);
      throw err;
    }
  }

  /**
   * The open file of `date`, checked at most once a second: a deleted or renamed file is
   * replaced by a fresh one of the day's name, which (like a truncated one) takes lines again.
   */
  async #fileFor(date: string): Promise<OpenLogFile> {
    const now = this.#clock();
    const current = this.#open;
    if (current?.date === date) {
      const found = await current.check(now);
      if (found !== 'same') this.#cap.reset(date);
      if (found !== 'replaced') return current;
    }
    await mkdir(this.#dir, { recursive: true });
    const opened = await OpenLogFile.open(date, join(this.#dir, dailyLogFileName(this.#stem, date)), now, this.#writeBytes);
    this.#open = opened;
    if (current) await current.close();
    // A new day's file (or the first): keep only the newest maxFiles, this one included.
    if (current?.date !== date) await this.#retention.prune(date);
    return opened;
  }

  #plan(batch: readonly QueuedLine[], size: number, path: string): WritePlan {
    const first = batch[0]!;
    const kept = this.#cap.linesToWrite(batch, size);
    const notice = this.#cap.noticeFor(first.date);
    let text = this.#cutPath === path ? '\n' : '';
    if (notice !== undefined) text += this.#kind.notice(first.instant, notice);
    const prefixBytes = Buffer.byteLength(text);
    // A text as long as its UTF-8 size is ASCII alone, which Latin-1 copies byte for byte without
    // UTF-8's measuring and encoding passes (about 150 ns a typical access line).
    let ascii = prefixBytes === text.length;
    for (let i = 0; i < kept; i++) {
      const line = batch[i]!;
      text += line.text;
      if (line.bytes !== line.text.length) ascii = false;
    }
    return { data: Buffer.from(text, ascii ? 'latin1' : 'utf8'), kept, withNotice: notice !== undefined, prefixBytes };
  }

  /**
   * After a write to `path` stopped at `written` bytes (a full disk): the lines of `batch` still to
   * write. Whole lines in the file are dropped from it; a cut line stays, and the next write to
   * `path` starts on a new line, so a retry neither repeats an entry nor glues two together.
   */
  #dropWritten(batch: readonly QueuedLine[], plan: WritePlan, written: number, path: string): QueuedLine[] {
    const part = writtenPart(batch.slice(0, plan.kept), plan.prefixBytes, written);
    if (part.prefixWritten) {
      if (this.#cutPath === path) this.#cutPath = undefined;
      if (plan.withNotice) this.#cap.record(batch[0]!.date, 0, true, path);
    }
    if (part.cut) this.#cutPath = path;
    this.#written += countEntries(batch, 0, part.lines);
    return batch.slice(part.lines);
  }

  /** Books a written batch with the cap, and says once on stderr that a day's file is full. */
  #commit(batch: readonly QueuedLine[], plan: WritePlan, path: string): void {
    if (this.#cutPath === path) this.#cutPath = undefined;
    this.#written += countEntries(batch, 0, plan.kept);
    this.#dropped += countEntries(batch, plan.kept, batch.length);
    const announcement = this.#cap.record(batch[0]!.date, batch.length - plan.kept, plan.withNotice, path);
    if (announcement !== undefined) this.#warn(announcement);
  }

  /** Stderr takes the usual text lines, whatever the file's format. */
  #tellCapDropsOnStderr(): void {
    const notice = this.#cap.takeNotice();
    if (notice !== undefined) this.#warn(formatLine(this.#stamp(this.#clock()), 'app', 'WARNING', notice).trimEnd());
  }

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
    // Retry at the next day change if it comes sooner (a new day may mean a new mount, a new quota).
    const boundary = this.#dates.nextMidnight;
    const untilNextDay = Number.isFinite(boundary) ? Math.max(0, boundary - this.#clock()) : this.#retryMs;
    this.#retryTimer = setTimeout(() => {
      this.#failing = false;
      this.#schedule();
    }, Math.min(this.#retryMs, untilNextDay));
    this.#retryTimer.unref();
  }
}

/**
 * The daily log file sink: `<dir>/<env>-<YYYY-MM-DD>.log`, the date local to the log time zone.
 *
 * Lines are queued in order and appended in batches of whole lines with O_APPEND, so several
 * processes can share a file without interleaving inside a line. The file for each line is
 * derived from the clock when it is logged (the next day boundary is cached), so a restart, a
 * sleeping laptop or a clock step never writes to the wrong day. Files are never renamed.
 */
import { closeSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createTimestamper, formatLine, type Logger, type LogLevel } from './log.js';
import { localDate, nextMidnight, pruneList } from './log-rotation.js';

export interface FileLoggerOptions {
  readonly dir: string;
  readonly appEnv: string;
  readonly timeZone: string;
  readonly maxFiles: number;
  readonly clock?: () => number;
  /** Where the one-line notice of an unwritable log goes (default: stderr). */
  readonly warn?: (line: string) => void;
  /** How long to wait before trying an unwritable directory again (default 30 s). */
  readonly retryMs?: number;
  /** How long the first queued line waits for company before a write (default 20 ms). */
  readonly flushDelayMs?: number;
  /** Queued bytes beyond which new lines are counted and dropped (default 16 MiB). */
  readonly maxQueuedBytes?: number;
}

export interface FileLogger extends Logger {
  /** Writes what is queued synchronously: for the process's `exit` event only. */
  flushSync(): void;
  /** Flushes, then closes the file; later lines are written synchronously. */
  close(): Promise<void>;
}

interface Entry {
  readonly file: string;
  readonly text: string;
}

const MAX_BATCH_BYTES = 1 << 20;

/** Creates the sink and applies retention once; never throws for an unwritable directory. */
export function createFileLogger(options: FileLoggerOptions): FileLogger {
  const { dir, appEnv, timeZone, maxFiles } = options;
  const clock = options.clock ?? Date.now;
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const retryMs = options.retryMs ?? 30_000;
  const maxQueuedBytes = options.maxQueuedBytes ?? 16 << 20;
  const flushDelayMs = options.flushDelayMs ?? 20;
  const stamp = createTimestamper(timeZone);

  const queue: Entry[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  let day = '';
  let boundary = -Infinity;
  let lastInstant = -Infinity;
  let handle: { file: string; fd: FileHandle } | undefined;
  let pumping: Promise<void> | undefined;
  /** Writing is paused until the retry timer fires. */
  let failing = false;
  /** A failure was reported on stderr and no write has succeeded since. */
  let reported = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  /** The file for an instant; recomputed past the cached boundary or when the clock went back. */
  function fileFor(instant: number): string {
    if (instant >= boundary || instant < lastInstant) {
      day = localDate(instant, timeZone);
      boundary = nextMidnight(instant, timeZone);
    }
    lastInstant = instant;
    return `${appEnv}-${day}.log`;
  }

  async function prune(): Promise<void> {
    try {
      await mkdir(dir, { recursive: true });
      for (const name of pruneList(await readdir(dir), appEnv, maxFiles)) {
        await unlink(join(dir, name)).catch(() => {}); // another process may have pruned it first
      }
    } catch {
      // An unreadable directory is reported by the writer; retention tries again next day.
    }
  }

  function enqueue(text: string, instant: number): void {
    const bytes = Buffer.byteLength(text);
    if (queuedBytes + bytes > maxQueuedBytes) {
      dropped++;
      return;
    }
    if (dropped > 0) {
      const notice = formatLine(stamp(instant), 'app', 'WARNING', `${dropped} log lines dropped: the log queue was full`);
      dropped = 0;
      queue.push({ file: fileFor(instant), text: notice });
      queuedBytes += Buffer.byteLength(notice);
    }
    queue.push({ file: fileFor(instant), text });
    queuedBytes += bytes;
  }

  /** Takes the longest run of queued lines for one file, up to MAX_BATCH_BYTES. */
  function takeBatch(): { file: string; data: Buffer; entries: Entry[] } {
    const file = queue[0]!.file;
    const entries: Entry[] = [];
    let size = 0;
    while (queue.length > 0 && queue[0]!.file === file && (size === 0 || size + queue[0]!.text.length <= MAX_BATCH_BYTES)) {
      const entry = queue.shift()!;
      entries.push(entry);
      size += entry.text.length;
    }
    const data = Buffer.from(entries.map((e) => e.text).join(''));
    queuedBytes -= data.byteLength;
    return { file, data, entries };
  }

  async function fdFor(file: string) {
    if (handle?.file === file) return handle.fd;
    await mkdir(dir, { recursive: true });
    const fd = await open(join(dir, file), 'a');
    const previous = handle;
    handle = { file, fd };
    if (previous) await previous.fd.close().catch(() => {});
    // A new file (a new day, or the first write): keep only the newest maxFiles, this one included.
    await prune();
    return fd;
  }

  async function writeAll(fd: FileHandle, data: Buffer): Promise<void> {
    let offset = 0;
    while (offset < data.byteLength) {
      const { bytesWritten } = await fd.write(data, offset, data.byteLength - offset);
      offset += bytesWritten;
    }
  }

  async function pump(): Promise<void> {
    while (queue.length > 0 && !failing) {
      const { file, data, entries } = takeBatch();
      try {
        await writeAll(await fdFor(file), data);
        if (reported) {
          reported = false;
          warn(`log: writing to ${dir} again`);
        }
      } catch (err) {
        // Put the batch back in front, keep answering, say so once, retry later.
        queue.unshift(...entries);
        queuedBytes += data.byteLength;
        reportFailure(err as NodeJS.ErrnoException);
      }
    }
  }

  function reportFailure(err: NodeJS.ErrnoException): void {
    if (handle) {
      void handle.fd.close().catch(() => {});
      handle = undefined;
    }
    if (!reported) {
      reported = true;
      warn(`log: cannot write to ${dir} (${err.code ?? err.message}); the service keeps answering and retries every ${retryMs / 1000} s`);
    }
    failing = true;
    clearTimeout(retryTimer);
    // Retry at the next day change if it comes sooner (a new day may mean a new mount, a new quota).
    const untilNextDay = Number.isFinite(boundary) ? Math.max(0, boundary - clock()) : retryMs;
    retryTimer = setTimeout(() => {
      failing = false;
      schedule();
    }, Math.min(retryMs, untilNextDay));
    retryTimer.unref();
  }

  function schedule(): void {
    if (pumping || failing) return;
    // Waiting a little gathers a flood's lines into few large writes instead of many small ones.
    pumping = new Promise<void>((resolve) => setTimeout(resolve, flushDelayMs))
      .then(pump)
      .finally(() => {
        pumping = undefined;
        if (queue.length > 0 && !failing) schedule();
      });
  }

  function flushSync(): void {
    const total = queue.length;
    let written = 0;
    if (total === 0) return;
    try {
      mkdirSync(dir, { recursive: true });
      while (queue.length > 0) {
        const { file, data, entries } = takeBatch();
        const fd = openSync(join(dir, file), 'a');
        try {
          let offset = 0;
          while (offset < data.byteLength) offset += writeSync(fd, data, offset);
        } finally {
          closeSync(fd);
        }
        written += entries.length;
      }
    } catch (err) {
      queue.length = 0;
      queuedBytes = 0;
      const lost = total - written;
      warn(`log: ${lost} line${lost === 1 ? '' : 's'} not written at exit (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }

  // Retention at start-up, synchronously so that a starting service is in a known state.
  try {
    mkdirSync(dir, { recursive: true });
    for (const name of pruneList(readdirSync(dir), appEnv, maxFiles)) {
      try {
        unlinkSync(join(dir, name));
      } catch {
        // another process may have pruned it first
      }
    }
  } catch (err) {
    reportFailure(err as NodeJS.ErrnoException);
  }

  return {
    log(channel: string, level: LogLevel, message: string) {
      const instant = clock();
      enqueue(formatLine(stamp(instant), channel, level, message), instant);
      if (closed) flushSync();
      else schedule();
    },
    async flush() {
      while (pumping) await pumping;
      if (queue.length > 0 && failing) return; // nothing more can be written now
      if (queue.length > 0) {
        schedule();
        await this.flush();
      }
    },
    flushSync,
    async close() {
      await this.flush();
      closed = true;
      clearTimeout(retryTimer);
      if (handle) {
        await handle.fd.close().catch(() => {});
        handle = undefined;
      }
    },
  };
}

/**
 * The daily file sink's pure middle: which lines go to which day's file, in what batches, under
 * the day's byte cap, and which are dropped and counted. Plain data in and out: the shell
 * (`daily-file-sink.ts`) gives instants, lines, the file it found for a batch (path and size) and
 * how many bytes a write put in it; it gets batches, their files' paths, the bytes to write, what
 * to say on stderr and the delay before a retry. Nothing here reads the clock, touches a file or
 * sets a timer.
 */
import { join } from 'node:path';
import { DayCap } from './day-cap.js';
import { countEntries, LineQueue, writtenPart, type QueuedLine } from './queue.js';
import { dailyLogFileName, LocalDates } from './rotation.js';
import type { ZonedTime } from './zoned-time.js';

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

/** A planner's bounds and names, all given: the settings' defaults are the caller's business. */
export interface PlannerSettings {
  readonly dir: string;
  readonly kind: DailyFileKind;
  readonly zoned: ZonedTime;
  /** Bytes one day's file may reach (LOG_MAX_BYTES). */
  readonly maxBytes: number;
  /** Queued bytes beyond which new lines are counted and dropped. */
  readonly maxQueuedBytes: number;
}

/** Lines of one date, in order: they go to the file of `date` (see BatchPlanner.pathOf). */
export interface Batch {
  readonly date: string;
  readonly lines: readonly QueuedLine[];
}

/** A day's file as the shell found it: its path and its size now (every writer's lines counted). */
export interface FileState {
  readonly path: string;
  readonly size: number;
}

/**
 * What to write of a batch: a prefix (a newline ending a line an earlier write cut, a notice
 * owed for an earlier day), then the `kept` first lines, those under the cap.
 */
export interface WritePlan {
  readonly batch: Batch;
  /** The file it is for: a cut line and the cap's announcement name it. */
  readonly path: string;
  readonly data: Buffer;
  readonly kept: number;
  readonly withNotice: boolean;
  readonly prefixBytes: number;
}

/** The most one write call carries. */
const MAX_BATCH_BYTES = 1 << 20;

/**
 * One sink's lines from the moment they are given to the moment they are booked written or
 * dropped: the queue, the dates, the day's cap, the line a failed write cut, the counts.
 */
export class BatchPlanner {
  readonly #dir: string;
  readonly #kind: DailyFileKind;
  readonly #dates: LocalDates;
  readonly #queue: LineQueue;
  readonly #cap: DayCap;
  /** Lines refused by the full queue since the last one accepted. */
  #queueDropped = 0;
  /** The file whose last line a failed write cut: the next write to it starts on a new line. */
  #cutPath: string | undefined;
  #written = 0;
  #dropped = 0;

  constructor(settings: PlannerSettings) {
    this.#dir = settings.dir;
    this.#kind = settings.kind;
    this.#dates = new LocalDates(settings.zoned);
    this.#queue = new LineQueue(settings.maxQueuedBytes);
    this.#cap = new DayCap(settings.maxBytes, settings.kind.what);
  }

  /** `2026-03-29`: the local date of `instant`, which names its file. */
  dateOf(instant: number): string {
    return this.#dates.dateOf(instant);
  }

  /**
   * Queues `text` (`bytes` long in UTF-8) given at `instant`, or counts it dropped when the queue
   * is full; the first line accepted after a refusal is preceded by a notice of how many were.
   */
  enqueue(instant: number, text: string, bytes: number): void {
    if (!this.#queue.fits(bytes)) {
      this.#queueDropped++;
      this.#dropped++;
      return;
    }
    const date = this.#dates.dateOf(instant);
    if (this.#queueDropped > 0) {
      const what = this.#kind.what;
      const notice = this.#kind.notice(instant, `${this.#queueDropped} ${what} lines dropped: the ${what} queue was full`);
      this.#queueDropped = 0;
      this.#queue.push({ date, instant, text: notice, bytes: Buffer.byteLength(notice), notice: true });
    }
    this.#queue.push({ date, instant, text, bytes, notice: false });
  }

  /** Lines waiting to be written. */
  get queuedLines(): number {
    return this.#queue.length;
  }

  /** Bytes of the lines waiting to be written. */
  get queuedBytes(): number {
    return this.#queue.bytes;
  }

  /** A whole batch is waiting: worth writing at once rather than after a gathering delay. */
  get fullBatchWaiting(): boolean {
    return this.#queue.bytes >= MAX_BATCH_BYTES;
  }

  /** `<dir>/<stem>-2026-03-29.log`: the file the lines of `date` go to. */
  pathOf(date: string): string {
    return join(this.#dir, dailyLogFileName(this.#kind.stem, date));
  }

  /** The next batch (at least one line must be queued): the longest run of one date's lines, up to MAX_BATCH_BYTES. */
  takeBatch(): Batch {
    const lines = this.#queue.takeBatch(MAX_BATCH_BYTES);
    return { date: lines[0]!.date, lines };
  }

  /** Puts a batch that was not written back in front of the queue. */
  putBack(batch: Batch): void {
    this.#queue.putBack(batch.lines);
  }

  /** What to write of `batch` into `file`, the file of its date. */
  plan(batch: Batch, file: FileState): WritePlan {
    const lines = batch.lines;
    const kept = this.#cap.linesToWrite(lines, file.size);
    const notice = this.#cap.noticeFor(batch.date);
    let text = this.#cutPath === file.path ? '\n' : '';
    if (notice !== undefined) text += this.#kind.notice(lines[0]!.instant, notice);
    const prefixBytes = Buffer.byteLength(text);
    // A text as long as its UTF-8 size is ASCII alone, which Latin-1 copies byte for byte without
    // UTF-8's measuring and encoding passes.
    let ascii = prefixBytes === text.length;
    for (let i = 0; i < kept; i++) {
      const line = lines[i]!;
      text += line.text;
      if (line.bytes !== line.text.length) ascii = false;
    }
    return { batch, path: file.path, data: Buffer.from(text, ascii ? 'latin1' : 'utf8'), kept, withNotice: notice !== undefined, prefixBytes };
  }

  /**
   * Books a write of `plan` that put `written` bytes of its data in the file. All of them: its
   * lines are written, those past the cap dropped, and the answer is the one stderr announcement
   * of a day's file reaching the cap, if this write made it so. Fewer (a failed write): the lines
   * not in the file whole go back in front of the queue, to be written again.
   */
  settle(plan: WritePlan, written: number): string | undefined {
    if (written < plan.data.byteLength) {
      this.#queue.putBack(this.#dropWritten(plan, written));
      return undefined;
    }
    return this.#commit(plan);
  }

  /** The file of `date` was truncated or replaced: it takes lines again. */
  fileRenewed(date: string): void {
    this.#cap.reset(date);
  }

  /** Counts every queued line dropped (unwritable at exit); returns how many lines were lost. */
  dropQueued(): number {
    const lost = this.#queue.clear();
    this.#dropped += countEntries(lost, 0, lost.length);
    return lost.length;
  }

  /** The notice of lines a full day refused, for stderr when no next day's file will carry it; it is then told. */
  takeCapNotice(): string | undefined {
    return this.#cap.takeNotice();
  }

  /**
   * How long to wait at `now` before writing again after a failure: `retryMs`, or less when the
   * day of the latest line ends sooner (a new day may mean a new mount, a new quota). Once that
   * day is over the retry at its midnight has happened: `retryMs` again, never a wait of nothing,
   * which would retry a failing disk at every gathering delay until a new line came.
   */
  retryDelay(now: number, retryMs: number): number {
    const boundary = this.#dates.nextMidnight;
    return Number.isFinite(boundary) && boundary > now ? Math.min(retryMs, boundary - now) : retryMs;
  }

  /** Entries written and dropped so far. */
  lineCounts(): LineCounts {
    return { written: this.#written, dropped: this.#dropped };
  }

  /**
   * The lines of a batch still to write after its write stopped at `written` bytes (a full
   * disk). Whole lines in the file are booked written; a cut line stays, and the next write to
   * the file starts on a new line, so a retry neither repeats an entry nor glues two together.
   */
  #dropWritten(plan: WritePlan, written: number): readonly QueuedLine[] {
    const { lines, date } = plan.batch;
    const path = plan.path;
    const part = writtenPart(lines.slice(0, plan.kept), plan.prefixBytes, written);
    if (part.prefixWritten) {
      if (this.#cutPath === path) this.#cutPath = undefined;
      if (plan.withNotice) this.#cap.record(date, 0, true, path);
    }
    if (part.cut) this.#cutPath = path;
    this.#written += countEntries(lines, 0, part.lines);
    return lines.slice(part.lines);
  }

  /** Books a batch written whole with the cap; the announcement when the day's file is first full. */
  #commit(plan: WritePlan): string | undefined {
    const { lines, date } = plan.batch;
    const path = plan.path;
    if (this.#cutPath === path) this.#cutPath = undefined;
    this.#written += countEntries(lines, 0, plan.kept);
    this.#dropped += countEntries(lines, plan.kept, lines.length);
    return this.#cap.record(date, lines.length - plan.kept, plan.withNotice, path);
  }
}

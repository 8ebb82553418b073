/**
 * The daily cap on a log file (`LOG_MAX_BYTES`), as pure bookkeeping: which lines of a batch
 * still fit, how many a full day refused, and the notice that tells of them. The batch planner
 * asks it with the file's size the sink found; the sink does the writing.
 */
import { linesUnderCap, type QueuedLine } from './queue.js';

/** Lines a full day's file refused, not yet told. */
interface Refused {
  readonly date: string;
  count: number;
}

/** One sink's view of the cap: its own file sizes come from the sink, the rules from here. */
export class DayCap {
  readonly #maxBytes: number;
  /** `log` or `access log`: what the messages call the lines. */
  readonly #what: string;
  #refused: Refused | undefined;
  /** The date whose file refuses lines until it shrinks or is replaced. */
  #fullDate: string | undefined;
  /** The date for which the first refusal was already announced. */
  #announcedDate: string | undefined;

  constructor(maxBytes: number, what: string) {
    this.#maxBytes = maxBytes;
    this.#what = what;
  }

  /** How many of `batch`'s first lines go into its file of `size` bytes; the rest are refused. */
  linesToWrite(batch: readonly QueuedLine[], size: number): number {
    return this.#fullDate === batch[0]?.date ? 0 : linesUnderCap(batch, size, this.#maxBytes);
  }

  /**
   * The notice owed at the top of a file of `date`: how many lines an earlier full day refused.
   * Written whatever that file's size, it is the one line beyond the bound.
   */
  noticeFor(date: string): string | undefined {
    return this.#refused && this.#refused.date !== date ? this.#message(this.#refused) : undefined;
  }

  /**
   * Books a written batch of `date`: the notice (if it carried one) is told, `refused` lines are
   * counted. Returns the one announcement for stderr when `date`'s cap is first hit.
   */
  record(date: string, refused: number, toldNotice: boolean, path: string): string | undefined {
    if (toldNotice) this.#refused = undefined;
    if (refused === 0) return undefined;
    this.#fullDate = date;
    if (this.#refused?.date === date) this.#refused.count += refused;
    else this.#refused = { date, count: refused };
    if (this.#announcedDate === date) return undefined;
    this.#announcedDate = date;
    return `${this.#what}: ${path} reached LOG_MAX_BYTES (${this.#maxBytes} bytes); further lines of ${date} are counted, not written`;
  }

  /** The file of `date` was replaced or truncated: it takes lines again. */
  reset(date: string): void {
    if (this.#fullDate === date) this.#fullDate = undefined;
  }

  /** The notice owed, for stderr when no next day's file will carry it; it is then told. */
  takeNotice(): string | undefined {
    const refused = this.#refused;
    this.#refused = undefined;
    return refused && this.#message(refused);
  }

  #message(refused: Refused): string {
    return `${refused.count} ${this.#what} lines dropped on ${refused.date}: the day's file reached LOG_MAX_BYTES (${this.#maxBytes} bytes)`;
  }
}

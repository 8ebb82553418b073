/**
 * Parts of the sink's pure middle (`batch-planner.ts`): queued lines in order, bounded in bytes,
 * taken in batches of one day's file; and which lines of a batch still fit under the day's cap.
 */

/** One formatted line waiting to be written. */
export interface QueuedLine {
  /** The local date of the line: it names the file. */
  readonly date: string;
  readonly instant: number;
  readonly text: string;
  readonly bytes: number;
  /** The sink's own notice, not an entry it was given: the line counts leave it out. */
  readonly notice?: boolean;
}

/** Lines in the order they were logged, at most `maxBytes` of them waiting. */
export class LineQueue {
  readonly #maxBytes: number;
  #lines: QueuedLine[] = [];
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get length(): number {
    return this.#lines.length;
  }

  /** Bytes of the queued lines. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether `bytes` more still fit under the bound. */
  fits(bytes: number): boolean {
    return this.#bytes + bytes <= this.#maxBytes;
  }

  push(line: QueuedLine): void {
    this.#lines.push(line);
    this.#bytes += line.bytes;
  }

  /** The longest run of lines of the first line's date, up to `maxBytes` (always one at least). */
  takeBatch(maxBytes: number): QueuedLine[] {
    const date = this.#lines[0]?.date;
    let count = 0;
    let size = 0;
    for (const line of this.#lines) {
      if (line.date !== date || (count > 0 && size + line.bytes > maxBytes)) break;
      count++;
      size += line.bytes;
    }
    this.#bytes -= size;
    return this.#lines.splice(0, count);
  }

  /** Puts a batch that could not be written back in front, in its order. */
  putBack(lines: readonly QueuedLine[]): void {
    this.#lines = lines.concat(this.#lines);
    for (const line of lines) this.#bytes += line.bytes;
  }

  /** Empties the queue; returns the lines it held. */
  clear(): QueuedLine[] {
    const lines = this.#lines;
    this.#lines = [];
    this.#bytes = 0;
    return lines;
  }
}

/** How many of `lines[from..to)` are entries, not the sink's notices. */
export function countEntries(lines: readonly QueuedLine[], from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) if (lines[i]!.notice !== true) count++;
  return count;
}

/**
 * How many of a batch's lines to write into a file of `size` bytes capped at `maxBytes`: the
 * lines up to the first that would cross the cap; that one and all after it are dropped, so a
 * day's file shows no gaps but one at its end.
 */
export function linesUnderCap(lines: readonly QueuedLine[], size: number, maxBytes: number): number {
  let total = size;
  for (let i = 0; i < lines.length; i++) {
    total += lines[i]!.bytes;
    if (total > maxBytes) return i;
  }
  return lines.length;
}

/** What a write that stopped part-way left in the file. */
export interface WrittenPart {
  /** The prefix (a newline ending a cut line, the cap's notice) is in the file whole. */
  readonly prefixWritten: boolean;
  /** How many of the batch's first lines are in the file whole. */
  readonly lines: number;
  /** The file now ends inside the prefix or a line: the next write must start on a new line. */
  readonly cut: boolean;
}

/**
 * Where a write of `prefixBytes` then `lines` (each in full) stopped after `written` bytes: the
 * whole lines are in the file and are not written again; a cut one is written again whole, after
 * a newline, so no line holds two entries and no entry appears twice.
 */
export function writtenPart(lines: readonly QueuedLine[], prefixBytes: number, written: number): WrittenPart {
  if (written < prefixBytes) return { prefixWritten: false, lines: 0, cut: written > 0 };
  let end = prefixBytes;
  let count = 0;
  while (count < lines.length && end + lines[count]!.bytes <= written) end += lines[count++]!.bytes;
  return { prefixWritten: true, lines: count, cut: written > end };
}

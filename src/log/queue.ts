/**
 * The sink's pure middle: queued lines in order, bounded in characters, taken in batches of one
 * day's file; and which lines of a batch still fit under the day's cap.
 *
 * Sizes here are characters (UTF-16 code units; a line of ASCII has as many bytes): measuring
 * each line's UTF-8 bytes as it was queued cost about as much as formatting an access line, for
 * it flattens the line's text. Bytes are counted where they decide something: near a day's cap,
 * and after a short write.
 */

/** One formatted line waiting to be written. */
export interface QueuedLine {
  /** The local date of the line: it names the file. */
  readonly date: string;
  readonly instant: number;
  readonly text: string;
  /** The sink's own notice, not an entry it was given: the line counts leave it out. */
  readonly notice?: boolean;
}

/** Lines in the order they were logged, at most `maxChars` characters of them waiting. */
export class LineQueue {
  readonly #maxChars: number;
  #lines: QueuedLine[] = [];
  #chars = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  get length(): number {
    return this.#lines.length;
  }

  /** Characters of the queued lines. */
  get chars(): number {
    return this.#chars;
  }

  /** Whether a line of `chars` characters still fits under the bound. */
  fits(chars: number): boolean {
    return this.#chars + chars <= this.#maxChars;
  }

  push(line: QueuedLine): void {
    this.#lines.push(line);
    this.#chars += line.text.length;
  }

  /** The longest run of lines of the first line's date, up to `maxChars` (always one at least). */
  takeBatch(maxChars: number): QueuedLine[] {
    const date = this.#lines[0]?.date;
    let count = 0;
    let size = 0;
    for (const line of this.#lines) {
      if (line.date !== date || (count > 0 && size + line.text.length > maxChars)) break;
      count++;
      size += line.text.length;
    }
    this.#chars -= size;
    return this.#lines.splice(0, count);
  }

  /** Puts a batch that could not be written back in front, in its order. */
  putBack(lines: readonly QueuedLine[]): void {
    this.#lines = lines.concat(this.#lines);
    for (const line of lines) this.#chars += line.text.length;
  }

  /** Empties the queue; returns the lines it held. */
  clear(): QueuedLine[] {
    const lines = this.#lines;
    this.#lines = [];
    this.#chars = 0;
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
  // A character is at most 3 bytes of UTF-8: far from the cap, no line needs measuring.
  let most = size;
  for (const line of lines) most += line.text.length * 3;
  if (most <= maxBytes) return lines.length;
  let total = size;
  for (let i = 0; i < lines.length; i++) {
    total += Buffer.byteLength(lines[i]!.text);
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
  while (count < lines.length) {
    const bytes = Buffer.byteLength(lines[count]!.text);
    if (end + bytes > written) break;
    end += bytes;
    count++;
  }
  return { prefixWritten: true, lines: count, cut: written > end };
}

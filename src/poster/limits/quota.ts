/**
 * POSTER_MAX_BYTES: the bytes `<PUBLIC_DIR>/posters/` may hold (docs/posters-and-api.md, "Rate limit and storage").
 *
 * The total is found by one walk of the directory, then kept current from an append-only ledger
 * in that directory (`.usage`, a dotfile, so never served): every process that writes a poster
 * appends `+<bytes> <name>\n` with O_APPEND, and every process reads what others appended since
 * its last look (a stat and a small read) before it decides. Nothing walks the directory per
 * request, the total survives restarts (the walk) and is shared by every process and machine
 * that shares the directory (the ledger).
 *
 * Why it is exact where it matters:
 * - The ledger's size is taken before the walk, and names are remembered: a poster the walk saw
 *   and the ledger also lists is counted once, whatever the interleaving.
 * - A writer links its poster into place before appending its line, so a line older than our
 *   starting offset belongs to a file that existed when the walk began, and the walk saw it.
 * - Within one process, the bytes of posters being written are reserved before writing, so
 *   concurrent requests never pass the cap together. Between processes, a poster another
 *   process is writing at that very moment (between its decision and its ledger line, a few
 *   milliseconds) is not yet seen: the cap can be passed by at most those posters.
 * - Removing files by hand is seen at the next walk: at start-up, or when the ledger is deleted
 *   or truncated, which makes every process walk again at its next new poster.
 */
import { open, opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Problem } from '../../core/index.js';
import { errorCode } from '../../util/errno.js';
import type { Admission, StoreCount, StoredPoster } from './limits.js';

/** The ledger's name inside the posters directory. */
export const USAGE_LEDGER = '.usage';
/** The longest ledger line read (`+<bytes> <name>`); longer ones are skipped as damaged. */
export const MAX_LEDGER_LINE = 256;
/** Ledger bytes read in one go when catching up. */
const LEDGER_READ_CHUNK = 64 * 1024;

/** A new poster would take the directory past POSTER_MAX_BYTES. */
export class InsufficientStorage extends Problem {
  constructor(limit: number, used: number) {
    super('insufficient_storage', `The poster store is full: it holds ${used} of its ${limit} bytes (POSTER_MAX_BYTES), so no new poster can be written. Existing posters can still be asked for.`, {
      extensions: { limit, used },
    });
  }
}

/** One line of the ledger. */
export interface LedgerRecord {
  readonly bytes: number;
  readonly name: string;
}

/** The ledger line of a written poster. */
export function formatLedgerRecord(record: LedgerRecord): string {
  return `+${record.bytes} ${record.name}\n`;
}

/**
 * The complete lines of a ledger chunk (decoded as latin1, one character per byte) and how many
 * bytes they take: a line still being written (no `\n` yet) is left for the next read. Damaged
 * lines are skipped.
 */
export function parseLedger(chunk: string): { records: LedgerRecord[]; consumed: number } {
  const records: LedgerRecord[] = [];
  let start = 0;
  for (let end = chunk.indexOf('\n'); end !== -1; start = end + 1, end = chunk.indexOf('\n', start)) {
    const record = parseLedgerLine(chunk.slice(start, end));
    if (record) records.push(record);
  }
  return { records, consumed: start };
}

function parseLedgerLine(line: string): LedgerRecord | undefined {
  if (line.length > MAX_LEDGER_LINE || line[0] !== '+') return undefined;
  const space = line.indexOf(' ');
  if (space < 2) return undefined;
  const digits = line.slice(1, space);
  const name = line.slice(space + 1);
  if (!/^\d{1,15}$/.test(digits) || name === '' || name.startsWith('.') || name.includes('/')) return undefined;
  return { bytes: Number(digits), name };
}

/** Where the ledger was when last read: its inode (0 when absent) and the bytes consumed. */
interface LedgerPosition {
  readonly ino: number;
  readonly offset: number;
}

/** The bytes a posters directory holds, kept current across processes; see the module comment. */
export class PosterUsage implements StoreCount {
  readonly #dir: string;
  readonly #ledgerPath: string;
  readonly #limit: number;
  #sizes = new Map<string, number>();
  #total = 0;
  #reserved = 0;
  #position: LedgerPosition = { ino: 0, offset: 0 };
  #walked = false;
  /** One refresh at a time: they all read the same ledger bytes. */
  #refreshing: Promise<void> | undefined;

  constructor(postersDir: string, limit: number) {
    this.#dir = postersDir;
    this.#ledgerPath = join(postersDir, USAGE_LEDGER);
    this.#limit = limit;
  }

  /** Bytes held, as last refreshed. */
  get total(): number {
    return this.#total;
  }

  /** Brings the total up to date: the walk the first time, then what the ledger gained. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /** Refuses (507) when not even one more byte fits: no need to render a poster to know. */
  async checkRoom(): Promise<void> {
    await this.refresh();
    if (this.#total + this.#reserved >= this.#limit) throw new InsufficientStorage(this.#limit, this.#total);
  }

  /**
   * Reserves `bytes` for a poster about to be written, or refuses (507) when they would take the
   * directory past the cap. Call `release` once the poster is written (or not).
   */
  async reserve(bytes: number): Promise<{ release(): void }> {
    await this.refresh();
    // From here to the reservation nothing awaits, so no other request of this process interleaves.
    if (this.#total + this.#reserved + bytes > this.#limit) throw new InsufficientStorage(this.#limit, this.#total);
    this.#reserved += bytes;
    let released = false;
    return {
      release: () => {
        if (!released) this.#reserved -= bytes;
        released = true;
      },
    };
  }

  /** `reserve` and `recordWritten` as one admission (the `StoreCount` the API uses). */
  async admit(record: LedgerRecord): Promise<Admission> {
    const reservation = await this.reserve(record.bytes);
    return {
      written: () => this.recordWritten(record),
      release: async () => reservation.release(),
    };
  }

  /** Records a poster this process has just linked into place: counted here, appended for the others. */
  async recordWritten(record: LedgerRecord): Promise<void> {
    this.#count(record);
    const file = await open(this.#ledgerPath, 'a');
    try {
      // One write of a short line with O_APPEND: lines of several writers never interleave.
      await file.write(formatLedgerRecord(record));
    } finally {
      await file.close();
    }
  }

  #count(record: LedgerRecord): void {
    if (this.#sizes.has(record.name)) return;
    this.#sizes.set(record.name, record.bytes);
    this.#total += record.bytes;
  }

  async #refresh(): Promise<void> {
    const now = await this.#ledgerStat();
    if (!this.#walked) return this.#walk(now);
    const { ino, offset } = this.#position;
    // Deleted, replaced or truncated: someone wants the directory counted again.
    if (now.ino === 0 && ino !== 0) return this.#walk(now);
    if (ino !== 0 && (now.ino !== ino || now.size < offset)) return this.#walk(now);
    // Created since the last look: every line in it is newer than our walk.
    const from = ino === 0 ? 0 : offset;
    if (now.size > from) await this.#readLedger(now.ino, from, now.size);
    else this.#position = { ino: now.ino, offset: from };
  }

  async #walk(ledger: { ino: number; size: number }): Promise<void> {
    const sizes = new Map<string, number>();
    let total = 0;
    for (const poster of await listPosters(this.#dir)) {
      sizes.set(poster.name, poster.bytes);
      total += poster.bytes;
    }
    this.#sizes = sizes;
    this.#total = total;
    this.#walked = true;
    this.#position = { ino: ledger.ino, offset: ledger.size };
  }

  async #readLedger(ino: number, from: number, to: number): Promise<void> {
    const file = await open(this.#ledgerPath, 'r');
    let offset = from;
    try {
      const buffer = Buffer.alloc(Math.min(LEDGER_READ_CHUNK, to - from));
      while (offset < to) {
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, to - offset), offset);
        if (bytesRead === 0) break;
        const { records, consumed } = parseLedger(buffer.toString('latin1', 0, bytesRead));
        for (const record of records) this.#count(record);
        if (consumed === 0) {
          // A line with no end in a whole chunk is damage, not a line being written: skip it.
          if (bytesRead === buffer.length) offset += bytesRead;
          break;
        }
        offset += consumed;
      }
    } finally {
      await file.close();
    }
    this.#position = { ino, offset };
  }

  async #ledgerStat(): Promise<{ ino: number; size: number }> {
    try {
      const { ino, size } = await stat(this.#ledgerPath);
      return { ino, size };
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return { ino: 0, size: 0 };
      throw err;
    }
  }
}

/** The size of a regular file, undefined if it is missing or not a regular file. */
export async function fileSize(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/** The posters a directory holds (no dotfiles: the ledger and temporary files), none when it is missing. */
export async function listPosters(dir: string): Promise<StoredPoster[]> {
  const posters: StoredPoster[] = [];
  try {
    for await (const entry of await opendir(dir)) {
      if (entry.name.startsWith('.') || !entry.isFile()) continue;
      const bytes = await fileSize(join(dir, entry.name));
      if (bytes !== undefined) posters.push({ name: entry.name, bytes });
    }
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
  return posters;
}

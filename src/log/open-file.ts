/**
 * A day's log file held open for appending, and the cheap check that it is still the file of
 * its name: `rm` or a rename (logrotate) of the file would otherwise leave the sink writing into
 * a deleted inode until midnight, losing lines and keeping the disk space. At exit, the same
 * append done synchronously.
 */
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { errorCode } from '../util/errno.js';

/** How often the open file is compared with its name, and its size re-read for other writers. */
export const RECHECK_MS = 1_000;

/** What a check found. */
export type FileCheck = 'same' | 'shrank' | 'replaced';

/** One write call: `length` bytes of `data` from `offset`; it may write fewer (a short write). */
export type WriteBytes = (fd: FileHandle, data: Buffer, offset: number, length: number) => Promise<{ bytesWritten: number }>;

/** How far an append got: all of it, or `written` bytes before `error` (ENOSPC on a full disk). */
export interface WriteOutcome {
  readonly written: number;
  readonly error?: unknown;
}

const writeBytes: WriteBytes = (fd, data, offset, length) => fd.write(data, offset, length);

/** An open file appended to with O_APPEND; its size counts every writer's lines. */
export class OpenLogFile {
  readonly date: string;
  readonly path: string;
  readonly #fd: FileHandle;
  readonly #dev: bigint;
  readonly #ino: bigint;
  readonly #writeBytes: WriteBytes;
  #size: number;
  #checkedAt: number;

  private constructor(
    date: string, path: string, fd: FileHandle, identity: { dev: bigint; ino: bigint; size: bigint }, now: number, write: WriteBytes,
  ) {
    this.date = date;
    this.path = path;
    this.#fd = fd;
    this.#dev = identity.dev;
    this.#ino = identity.ino;
    this.#size = Number(identity.size);
    this.#checkedAt = now;
    this.#writeBytes = write;
  }

  /** Opens (creating) `path` for appending; its size is the file's real size. */
  static async open(date: string, path: string, now: number, write: WriteBytes = writeBytes): Promise<OpenLogFile> {
    const fd = await open(path, 'a');
    try {
      return new OpenLogFile(date, path, fd, await fd.stat({ bigint: true }), now, write);
    } catch (err) {
      await fd.close().catch(() => {});
      throw err;
    }
  }

  /** Bytes in the file: its size when last checked, plus what this process wrote since. */
  get size(): number {
    return this.#size;
  }

  /**
   * Past RECHECK_MS since the last look (or when the clock went back): whether the path still
   * names this file, and its size re-read so other processes' lines count. Two stat calls a
   * second at most; `same` without a system call in between.
   */
  async check(now: number): Promise<FileCheck> {
    if (Math.abs(now - this.#checkedAt) < RECHECK_MS) return 'same';
    this.#checkedAt = now;
    const [held, named] = await Promise.all([this.#fd.stat({ bigint: true }), statUnlessGone(this.path)]);
    if (!named || named.dev !== this.#dev || named.ino !== this.#ino) return 'replaced';
    const size = Number(held.size);
    const shrank = size < this.#size; // truncated in place (logrotate's copytruncate)
    this.#size = size;
    return shrank ? 'shrank' : 'same';
  }

  /**
   * Appends `data`; never throws: a failure part-way (a disk that fills) says how many bytes
   * are in the file already, so the caller neither loses nor repeats them.
   */
  async write(data: Buffer): Promise<WriteOutcome> {
    let offset = 0;
    try {
      while (offset < data.byteLength) {
        const { bytesWritten } = await this.#writeBytes(this.#fd, data, offset, data.byteLength - offset);
        offset += bytesWritten;
        this.#size += bytesWritten;
      }
      return { written: offset };
    } catch (error) {
      return { written: offset, error };
    }
  }

  /** Closes the descriptor; a failure to close loses nothing already written. */
  async close(): Promise<void> {
    await this.#fd.close().catch(() => {});
  }
}

/** Opens (creating) `path` for appending, synchronously (at exit): its path, descriptor and size. */
export function openForAppendSync(path: string): { path: string; fd: number; size: number } {
  const fd = openSync(path, 'a');
  try {
    return { path, fd, size: fstatSync(fd).size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Appends `data` to `fd` synchronously (at exit); like OpenLogFile's write, never throws. */
export function appendAllSync(fd: number, data: Buffer): WriteOutcome {
  let offset = 0;
  try {
    while (offset < data.byteLength) offset += writeSync(fd, data, offset);
    return { written: offset };
  } catch (error) {
    return { written: offset, error };
  }
}

/** The identity of the file at `path`, or undefined once it was deleted or renamed away. */
async function statUnlessGone(path: string) {
  try {
    return await stat(path, { bigint: true });
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

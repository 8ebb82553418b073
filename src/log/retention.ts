/**
 * Retention of one log's daily files, the I/O around the pure pruneList: at start-up
 * (synchronously, so a starting service is in a known state) and whenever a new day's file is
 * opened. Only names of the log's own stem are ever deleted.
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { futureDated, pruneList } from './rotation.js';

/** One sink's retention: its directory, its stem, how many files it keeps. */
export class Retention {
  readonly #dir: string;
  readonly #stem: string;
  readonly #maxFiles: number;
  readonly #what: string;
  readonly #warn: (line: string) => void;
  /** Files dated after today were reported on stderr (once per sink). */
  #futureReported = false;

  constructor(dir: string, stem: string, maxFiles: number, what: string, warn: (line: string) => void) {
    this.#dir = dir;
    this.#stem = stem;
    this.#maxFiles = maxFiles;
    this.#what = what;
    this.#warn = warn;
  }

  /** Prunes synchronously while the file of `writing` is in use; throws if the directory cannot be read. */
  pruneSync(writing: string): void {
    for (const name of this.#pruneList(readdirSync(this.#dir), writing)) {
      try {
        unlinkSync(join(this.#dir, name));
      } catch {
        // another process may have pruned it first
      }
    }
  }

  /** Prunes while the file of `writing` is in use; never throws. */
  async prune(writing: string): Promise<void> {
    try {
      await mkdir(this.#dir, { recursive: true });
      for (const name of this.#pruneList(await readdir(this.#dir), writing)) {
        await unlink(join(this.#dir, name)).catch(() => {}); // another process may have pruned it first
      }
    } catch {
      // An unreadable directory is reported by the writer; retention tries again next day.
    }
  }

  /** What retention deletes while the file of `writing` is in use; says once if some are dated later. */
  #pruneList(names: string[], writing: string): string[] {
    const future = futureDated(names, this.#stem, writing);
    if (future.length > 0 && !this.#futureReported) {
      this.#futureReported = true;
      this.#warn(
        `${this.#what}: ${future.length} file${future.length === 1 ? '' : 's'} in ${this.#dir} dated after ${writing} (the latest ${future.at(-1)}): ` +
          'was the clock ahead? Retention counts them as the newest and never deletes the file in use',
      );
    }
    return pruneList(names, this.#stem, this.#maxFiles, writing);
  }
}

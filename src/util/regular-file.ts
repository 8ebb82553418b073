/**
 * Reading a file an operator names (a settings document, a poster spec) with a bound: only a
 * regular file, and never more than the bound. A link to `/dev/zero` would otherwise be read
 * until memory runs out, and a FIFO would block the reading thread until a writer comes.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** A file that was not read, and why (`reason`: "larger than 65536 bytes", "a FIFO, not a regular file"). */
export class FileRefused extends Error {
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'FileRefused';
    this.path = path;
    this.reason = reason;
  }
}

/** What was read, with the stats of the descriptor it was read from (not of a later look at the path). */
export interface RegularFileContents {
  readonly bytes: Buffer;
  readonly stats: Stats;
}

// Non-blocking, so opening a FIFO returns at once instead of waiting for a writer; it changes
// nothing for a regular file.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * The bytes of the regular file at `path` (a symbolic link is followed), at most `maxBytes` of
 * them; throws FileRefused for anything else or anything longer, and the system's error (ENOENT,
 * EACCES) when the file cannot be opened. Reads at most `maxBytes + 1` bytes whatever the file's
 * size says: a `/proc` file says 0, and a file may grow while it is read. The bounds it is given
 * are small, so one buffer of that size is allocated up front.
 */
export function readRegularFile(path: string, maxBytes: number): RegularFileContents {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new FileRefused(path, `${kindOf(stats)}, not a regular file`);
    if (stats.size > maxBytes) throw new FileRefused(path, `larger than ${maxBytes} bytes`);
    const buffer = Buffer.allocUnsafe(maxBytes + 1);
    let length = 0;
    while (length < buffer.byteLength) {
      const read = readSync(fd, buffer, length, buffer.byteLength - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) throw new FileRefused(path, `larger than ${maxBytes} bytes`);
    return { bytes: Buffer.from(buffer.subarray(0, length)), stats };
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not a regular one is, as an operator would name it. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'a special file';
}

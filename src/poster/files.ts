/**
 * Putting rendered poster bytes in place: `<posters dir>/<name>`, atomically and never replacing
 * a file (same name, same bytes: the first writer wins).
 */
import { randomBytes } from 'node:crypto';
import { link, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from '../util/errno.js';
import { makeDirectories } from '../util/make-directories.js';

/** Random bytes in a temp file's name: enough that two writers never pick the same one. */
const TEMP_NAME_BYTES = 8;

/**
 * Writes `bytes` to a dotted temp file in `dir` (never served), flushes it, then hard-links it
 * as `name`: a reader sees the whole poster or nothing, and a link never replaces an existing
 * file. Returns true when this call created the file, false when it was already there.
 */
export async function writePosterFile(dir: string, name: string, bytes: Uint8Array): Promise<boolean> {
  // One component at a time: Node's recursive mkdir never ends under a PUBLIC_DIR in /proc.
  await makeDirectories(dir);
  const temp = join(dir, `.${randomBytes(TEMP_NAME_BYTES).toString('hex')}.tmp`);
  try {
    const file = await open(temp, 'wx');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await link(temp, join(dir, name));
      return true;
    } catch (err) {
      if (errorCode(err) === 'EEXIST') return false; // another writer of the same spec
      throw err;
    }
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Creating a directory and its missing parents, one component at a time. Node's own recursive
 * `mkdir` never ends where a parent exists but nothing can be created in it (`/proc/self/x`,
 * `/proc/nope/x`): it goes back up and down the path for ever, a core busy all the while.
 */
import { mkdir, stat } from 'node:fs/promises';
import { parse, resolve, sep } from 'node:path';
import { errorCode } from './errno.js';

/**
 * Makes `path` a directory: each component from the root down is created unless it exists as a
 * directory (or a link to one). Fails with the system's error for the first component that cannot
 * be created, or ENOTDIR for one that exists and is not a directory: at most one `mkdir` and one
 * `stat` per component, so it always ends.
 */
export async function makeDirectories(path: string): Promise<void> {
  const absolute = resolve(path);
  const { root } = parse(absolute);
  let prefix = root;
  for (const name of absolute.slice(root.length).split(sep)) {
    if (name === '') continue;
    prefix = prefix === root ? root + name : prefix + sep + name;
    await makeDirectory(prefix);
  }
}

/** Creates one directory whose parent exists, or accepts a directory already there. */
async function makeDirectory(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (err) {
    if (errorCode(err) !== 'EEXIST') throw err;
    if (!(await stat(path)).isDirectory()) {
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path });
    }
  }
}

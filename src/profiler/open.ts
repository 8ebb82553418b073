/**
 * `/_profiler/open`: which files it may show. Only regular files under the project's `src/`,
 * checked after resolving the path and again after resolving symlinks.
 */
import { open, realpath } from 'node:fs/promises';
import { isInside } from '../util/paths.js';
import { isAbsolute, join, relative, resolve } from 'node:path';

const MAX_SOURCE_BYTES = 1 << 20;


/**
 * The text of a project source file named by `file` (relative to the project or absolute), or
 * undefined when it must not or cannot be shown.
 */
export async function readProjectSource(projectDir: string, file: string): Promise<{ path: string; text: string } | undefined> {
  if (file === '' || file.includes('\0') || file.split(/[\\/]/).includes('..')) return undefined;
  const sourceRoot = join(projectDir, 'src');
  const candidate = isAbsolute(file) ? resolve(file) : resolve(projectDir, file);
  if (!isInside(sourceRoot, candidate)) return undefined;
  try {
    const [realRoot, realFile] = await Promise.all([realpath(sourceRoot), realpath(candidate)]);
    if (!isInside(realRoot, realFile)) return undefined;
    const handle = await open(realFile, 'r');
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > MAX_SOURCE_BYTES) return undefined;
      return { path: relative(projectDir, candidate), text: await handle.readFile('utf8') };
    } finally {
      await handle.close();
    }
  } catch {
    return undefined; // missing, unreadable or a dangling link: all "cannot be opened"
  }
}

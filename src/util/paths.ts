/**
 * The one rule for "inside a directory", pure: static files, the profiler's source viewer and
 * stack links all ask it.
 */
import { sep } from 'node:path';

/**
 * Whether `candidate` (absolute, normalised) lies strictly inside `root` (absolute, normalised).
 * Separator-aware: `/srv/public-secret/x` is not inside `/srv/public`, and the root itself is
 * not inside itself (it is a directory, never a file to serve or show).
 */
export function isInside(root: string, candidate: string, separator: string = sep): boolean {
  const prefix = root.endsWith(separator) ? root : root + separator;
  return candidate.length > prefix.length && candidate.startsWith(prefix);
}

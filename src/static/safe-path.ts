/**
 * Path safety rules for static files, pure: which decoded segments may name a file under the
 * public directory, and whether a resolved path lies inside a root.
 */
import { sep } from 'node:path';

/**
 * Whether decoded segments may name a public file. Refused: empty segments (`//x`, a trailing
 * `/`), `.` and `..`, dot-prefixed names (dotfiles and dot-directories), and a NUL, `/` or `\`
 * inside a segment (`/static/..%2Fx` arrives as the one segment `../x`).
 */
export function isSafeSegments(segments: readonly string[]): boolean {
  if (segments.length === 0) return false;
  return segments.every(isSafeSegment);
}

function isSafeSegment(segment: string): boolean {
  // A dot-prefixed name covers `.` and `..` too.
  return segment !== '' && !segment.startsWith('.') && !/[\0/\\]/.test(segment);
}

/**
 * Whether the path of `candidate` below `root` has a dot-prefixed segment: a symlink inside
 * the public directory that points at `.env` must not serve it.
 */
export function hasDotSegmentBelow(root: string, candidate: string, separator: string = sep): boolean {
  const prefix = root.endsWith(separator) ? root : root + separator;
  return candidate.slice(prefix.length).split(separator).some((segment) => segment.startsWith('.'));
}

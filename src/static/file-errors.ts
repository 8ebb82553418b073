/**
 * What a failed file-system call means for a static request, pure: "there is no such file" is
 * answered like an unrouted path (404); anything else (a permission, a loop, an I/O error) is
 * a fault of the deployment, logged at CRITICAL as a 500 and never a quiet 404.
 */

/** Errors that mean "there is no such file". */
const MISSING_FILE_CODES: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']);

export type FileErrorKind = 'missing' | 'fault';

/** `ENOENT` -> `missing`; `EACCES`, `EPERM`, `ELOOP`, `EIO`, no code at all -> `fault`. */
export function classifyFileError(code: string | undefined): FileErrorKind {
  return code !== undefined && MISSING_FILE_CODES.has(code) ? 'missing' : 'fault';
}

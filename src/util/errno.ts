/** The `code` of a system or Node error (`ENOENT`, `EACCES`, `ERR_…`), or undefined for anything else. */
export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * Small pieces for scanning header values by hand, one character at a time: every loop moves
 * forward, so a value costs time linear in its length whatever its shape.
 */

/** SP or HTAB: optional whitespace (RFC 9110 5.6.3). */
export function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** The index of the first character at or after `at` that is not SP or HTAB. */
export function skipOws(value: string, at: number): number {
  let i = at;
  while (i < value.length && isOws(value.charCodeAt(i))) i++;
  return i;
}

/** The value without optional whitespace around it. */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** The index just past the run of ASCII digits starting at `at`. */
export function skipDigits(value: string, at: number): number {
  let i = at;
  while (i < value.length && isDigit(value.charCodeAt(i))) i++;
  return i;
}

/** 0-9. */
export function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * What a text costs a profile, in bytes: the larger of its size as JSON (UTF-8, quoted and escaped,
 * as a profile travels to the cluster primary) and its size in V8's memory (a byte a character,
 * two a character for a string holding any character past U+00FF). Counting characters instead
 * let a profile of `é`, `€` or control characters pass its 64 KiB by two, three or six times.
 */

/** A prefix of a text, measured. */
export interface Prefix {
  /** Its length in UTF-16 units: the text is cut at `end`. */
  readonly end: number;
  /** Its bytes as JSON, quotes not counted. */
  readonly jsonBytes: number;
  /** Whether it holds a character past U+00FF, which makes V8 store two bytes a character. */
  readonly wide: boolean;
}

/** Control characters JSON writes as a two-character escape (`\n`); the others take six (`\u0001`). */
const SHORT_ESCAPES: ReadonlySet<number> = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** The bytes JSON.stringify writes for one UTF-16 unit that is not half of a surrogate pair. */
function escapedBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20) return SHORT_ESCAPES.has(code) ? 2 : 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  // A lone surrogate is written as an escape (`\ud800`), as well-formed JSON.stringify does.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return 3;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The longest prefix of `text` within `jsonRoom` bytes of JSON and `unitRoom` UTF-16 units; it
 * never ends inside a surrogate pair. Reads no further than the prefix and the unit after it.
 */
export function fitPrefix(text: string, jsonRoom: number, unitRoom = text.length): Prefix {
  const last = Math.min(text.length, unitRoom);
  let end = 0;
  let jsonBytes = 0;
  let wide = false;
  while (end < last) {
    const code = text.charCodeAt(end);
    const pair = isHighSurrogate(code) && end + 1 < text.length && isLowSurrogate(text.charCodeAt(end + 1));
    const units = pair ? 2 : 1;
    const bytes = pair ? 4 : escapedBytes(code);
    if (end + units > last || jsonBytes + bytes > jsonRoom) break;
    end += units;
    jsonBytes += bytes;
    if (code > 0xff) wide = true;
  }
  return { end, jsonBytes, wide };
}

/** What `text` costs kept whole: its JSON with the quotes, or its characters in memory, whichever is more. */
export function textCost(text: string): number {
  const { jsonBytes, wide } = fitPrefix(text, Infinity);
  return Math.max(jsonBytes + 2, wide ? 2 * text.length : text.length);
}

/**
 * A copy of `text` that shares no memory with it: V8 keeps the whole of a string alive for a
 * slice cut from it, so a log line of a megabyte cut to 8 KiB would still hold the megabyte.
 * JSON.parse builds every string it returns anew.
 */
export function detachedCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

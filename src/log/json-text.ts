/**
 * Texts inside a JSON log line (RFC 8259): what JSON.stringify leaves raw that a log line must not
 * hold, and how many bytes a text takes once written, so a long one can be cut to fit its line.
 *
 * JSON.stringify (ES2019, well-formed) escapes `"`, `\`, C0 controls and lone surrogates
 * (`\ud800`: ASCII, so the line stays valid UTF-8 and parses back to the same string). It leaves
 * DEL, the C1 controls (U+0080..U+009F, which terminals may obey) and U+2028/U+2029 (line breaks
 * to many line splitters) raw: escapeJsonLine escapes those too. jsonString quotes a text both
 * ways, and measureJsonText counts the bytes it takes.
 */
import { cutMarker } from './format.js';

/** DEL, C1 and the two Unicode line breaks: the characters JSON.stringify writes raw that a line must not hold. */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029]/;

const isRawInJson = (code: number) => (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

/**
 * A JSON text with DEL, C1 controls, U+2028 and U+2029 written as `\uXXXX` escapes: the same value
 * for JSON.parse, one line for every splitter. They can only stand inside strings (keys, numbers
 * and punctuation are ASCII), where an escape means the same character. One native scan when
 * there is none.
 */
export function escapeJsonLine(json: string): string {
  if (!RAW_IN_JSON.test(json)) return json;
  let out = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (!isRawInJson(code)) continue;
    out += `${json.slice(from, i)}\\u${code.toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return out + json.slice(from);
}

/** Anything JSON.stringify or escapeJsonLine would change, surrogates included (a pair costs one stringify). */
const NOT_PLAIN = /["\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/;

/** A text this short is read by a loop: for a few characters it beats starting the regex engine. */
const SHORT_TEXT = 32;

/** Whether `text` is written as it is between quotes: printable, no quote, no backslash, no surrogate. */
function isPlain(text: string): boolean {
  if (text.length > SHORT_TEXT) return !NOT_PLAIN.test(text);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return false;
    if (code >= 0x7f && (code <= 0x9f || code === 0x2028 || code === 0x2029 || (code >= 0xd800 && code <= 0xdfff))) return false;
  }
  return true;
}

/**
 * `"text"`, or `null` for null: a JSON string one line may hold (see escapeJsonLine). Most
 * texts are plain and are quoted as they are; the others go through JSON.stringify.
 */
export function jsonString(text: string | null): string {
  if (text === null) return 'null';
  return isPlain(text) ? `"${text}"` : escapeJsonLine(JSON.stringify(text));
}

/** What jsonString writes between the quotes: the text itself when it is plain. */
export function jsonStringContent(text: string): string {
  return isPlain(text) ? text : escapeJsonLine(JSON.stringify(text)).slice(1, -1);
}

/** A finite number as JSON writes it; NaN and the infinities, which JSON cannot hold, as `null`. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? `${value}` : 'null';
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** `\b \t \n \f \r`: the C0 controls JSON.stringify writes as two characters; the others take six. */
const isShortEscape = (code: number) => code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;

/** Bytes one code unit (not half of a pair) takes in the line: JSON.stringify's escapes, then escapeJsonLine's. */
function writtenBytes(code: number): number {
  if (code < 0x20) return isShortEscape(code) ? 2 : 6;
  if (code === 0x22 || code === 0x5c) return 2; // \" and \\
  if (code < 0x7f) return 1;
  if (code <= 0x9f) return 6;
  if (code < 0x800) return 2;
  if (code === 0x2028 || code === 0x2029) return 6;
  if (isHighSurrogate(code) || isLowSurrogate(code)) return 6; // alone: \udXXX
  return 3;
}

/**
 * The longest start of `text` whose written form (quotes excluded) fits in `room` bytes (`room`
 * Infinity: the whole text): code units kept and their bytes. Whole characters and whole
 * escapes only, never half a surrogate pair.
 */
export function measureJsonText(text: string, room: number): { units: number; bytes: number } {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    const pair = isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(i + 1));
    const size = pair ? 4 : writtenBytes(code);
    if (bytes + size > room) return { units: i, bytes };
    bytes += size;
    i += pair ? 2 : 1;
  }
  return { units: text.length, bytes };
}

/**
 * `text` cut to a start whose written form, cut marker included, takes at most `room` bytes; the
 * marker gives the written bytes left out, as the error log's does. `size` is the whole text's
 * written bytes (measureJsonText), and more than `room`.
 */
export function cutJsonText(text: string, size: number, room: number): string {
  // The marker is ASCII but for `…` (3 bytes, 1 code unit); its length depends on the count cut.
  // The whole size's digits are an upper bound; a second try with the marker that bound gives
  // keeps more, and cuts no more.
  const markerBytes = (cut: number) => cutMarker(cut).length + 2;
  let kept = measureJsonText(text, Math.max(0, room - markerBytes(size)));
  const shorter = markerBytes(size - kept.bytes);
  if (shorter < markerBytes(size)) kept = measureJsonText(text, Math.max(0, room - shorter));
  return text.slice(0, kept.units) + cutMarker(size - kept.bytes);
}

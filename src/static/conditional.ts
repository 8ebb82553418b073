/**
 * Validators and conditional requests (RFC 9110 8.8 and 13), pure: the strong entity tag and
 * Last-Modified of a file, entity-tag lists, and the evaluation order of RFC 9110 13.2.2.
 * Every header value is scanned by hand in one forward pass.
 */
import { parseHttpDate, skipOws, trimOws } from '../http/index.js';

export { formatHttpDate, parseHttpDate } from '../http/index.js';

/** The validators of one file. */
export interface Validators {
  /** A strong entity tag, quoted: `"1f4-17a0c3e5d2b1c000"`. */
  readonly etag: string;
  /** Last-Modified in ms since the epoch, whole seconds (what an HTTP-date can carry). */
  readonly lastModified: number;
}

/** The conditional header fields of a request, as sent (undefined when absent). */
export interface ConditionalFields {
  readonly ifMatch?: string | undefined;
  readonly ifNoneMatch?: string | undefined;
  readonly ifModifiedSince?: string | undefined;
  readonly ifUnmodifiedSince?: string | undefined;
}

/**
 * What the preconditions say: go on, answer 304 Not Modified, or 412 Precondition Failed.
 */
export type PreconditionOutcome = 'proceed' | 'notModified' | 'failed';

/**
 * A strong entity tag from a file's size and its modification time in nanoseconds. Both
 * change on any ordinary rewrite, and nanoseconds tell apart two writes within one second.
 */
export function strongEntityTag(size: bigint, mtimeNs: bigint): string {
  return `"${size.toString(16)}-${mtimeNs.toString(16)}"`;
}

/**
 * Last-Modified of a modification time in ms: truncated to whole seconds, and never later than
 * `now`, the message's own Date (RFC 9110 8.8.2.1: a time in the future is replaced by the
 * date of the message).
 */
export function lastModifiedOf(mtimeMs: number, now: number): number {
  return Math.min(wholeSeconds(mtimeMs), wholeSeconds(now));
}

/** What an HTTP-date can carry of an instant. */
function wholeSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/** An entity tag of a list: `W/"x"` is weak with opaque tag `"x"`. */
interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/**
 * Parses `If-Match` / `If-None-Match`: `*`, or a list of entity tags (RFC 9110 8.8.3).
 * Undefined when malformed.
 */
export function parseEntityTagList(value: string): '*' | EntityTag[] | undefined {
  if (trimOws(value) === '*') return '*';
  const tags: EntityTag[] = [];
  return scanEntityTags(value, (weak, opaque) => void tags.push({ weak, opaque })) ? tags : undefined;
}

/**
 * Calls `visit` with each entity tag of a list, in order; false when the list is malformed. A
 * tag may hold commas (`"a,b"`), so the list is read tag by tag, one character at a time. Empty
 * list elements are skipped (RFC 9110 5.6.1.2).
 */
function scanEntityTags(value: string, visit: (weak: boolean, opaque: string) => void): boolean {
  let at = skipOws(value, 0);
  while (at < value.length) {
    if (value.charCodeAt(at) === COMMA) {
      at = skipOws(value, at + 1);
      continue;
    }
    const weak = value.startsWith('W/', at);
    const open = weak ? at + 2 : at;
    if (value.charCodeAt(open) !== DQUOTE) return false;
    let close = open + 1;
    while (close < value.length && isEtagc(value.charCodeAt(close))) close++;
    if (value.charCodeAt(close) !== DQUOTE) return false;
    visit(weak, value.slice(open, close + 1));
    at = skipOws(value, close + 1);
    // `"a" "b"`: tags must be separated by commas.
    if (at < value.length && value.charCodeAt(at) !== COMMA) return false;
  }
  return true;
}

const COMMA = 0x2c;
const DQUOTE = 0x22;

/** etagc = %x21 / %x23-7E / obs-text (RFC 9110 8.8.3): visible characters but DQUOTE. */
function isEtagc(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/**
 * Whether a list (or `*`) holds `etag`: by strong comparison (RFC 9110 8.8.3.2: both strong,
 * the same opaque tag) or weak comparison (the same opaque tag). A malformed list holds nothing.
 * Compared while scanning, so a list of thousands of tags allocates none of them.
 */
function listHolds(value: string, etag: string, strong: boolean): boolean {
  if (trimOws(value) === '*') return true;
  let found = false;
  const wellFormed = scanEntityTags(value, (weak, opaque) => {
    if (opaque === etag && !(strong && weak)) found = true;
  });
  return wellFormed && found;
}

/**
 * Evaluates the preconditions of a GET or HEAD on an existing file in the order of
 * RFC 9110 13.2.2: If-Match, else If-Unmodified-Since (412 when false); then If-None-Match
 * (weak comparison; 304 when it matches), else If-Modified-Since (304 when not modified since).
 * A field that does not parse is ignored, as RFC 9110 13.1.3 and 13.1.4 ask for dates.
 */
export function evaluatePreconditions(fields: ConditionalFields, validators: Validators, now: number): PreconditionOutcome {
  const { etag, lastModified } = validators;
  if (fields.ifMatch !== undefined) {
    if (!listHolds(fields.ifMatch, etag, true)) return 'failed';
  } else if (fields.ifUnmodifiedSince !== undefined) {
    const since = parseHttpDate(fields.ifUnmodifiedSince, now);
    if (since !== undefined && lastModified > since) return 'failed';
  }
  if (fields.ifNoneMatch !== undefined) {
    return listHolds(fields.ifNoneMatch, etag, false) ? 'notModified' : 'proceed';
  }
  if (fields.ifModifiedSince !== undefined) {
    const since = parseHttpDate(fields.ifModifiedSince, now);
    if (since !== undefined && lastModified <= since) return 'notModified';
  }
  return 'proceed';
}

/**
 * Whether an `If-Range` value lets a Range apply (RFC 9110 13.1.5): an entity tag must match
 * the current one by strong comparison (a weak tag never does); an HTTP-date must equal
 * Last-Modified exactly. Anything else is false, and the whole representation is sent.
 */
export function ifRangeHolds(value: string, validators: Validators, now: number): boolean {
  const text = trimOws(value);
  // RFC 9110 13.1.5: a DQUOTE or `W/` at the start tells an entity tag from a date.
  if (text.startsWith('"') || text.startsWith('W/')) return text === validators.etag;
  const date = parseHttpDate(text, now);
  return date !== undefined && date === validators.lastModified;
}

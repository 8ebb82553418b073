/**
 * Validators and conditional requests (RFC 9110 8.8 and 13), pure: the strong entity tag and
 * Last-Modified of a file, HTTP-date parsing, and the evaluation order of RFC 9110 13.2.2.
 */

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

/** Last-Modified of a modification time in ms: truncated to whole seconds. */
export function lastModifiedOf(mtimeMs: number): number {
  return Math.floor(mtimeMs / 1000) * 1000;
}

/** An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the one format HTTP senders use. */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 5.6.7: IMF-fixdate, then the obsolete RFC 850 and asctime formats.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * Parses an HTTP-date in any of the three formats RFC 9110 5.6.7 requires recipients to
 * accept; undefined for anything else (so `If-Modified-Since: 1` is ignored rather than read as
 * some year). `now` places RFC 850's two-digit years: one more than 50 years ahead is in the past.
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  const text = value.trim();
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  m = RFC850_DATE.exec(text);
  if (m) {
    const currentYear = new Date(now).getUTCFullYear();
    let year = currentYear - (currentYear % 100) + Number(m[3]);
    if (year > currentYear + 50) year -= 100;
    return utc(year, m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME_DATE.exec(text);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!);
  return undefined;
}

function utc(year: number, month: string, day: number, hours: string, minutes: string, seconds: string): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  const [h, min, s] = [Number(hours), Number(minutes), Number(seconds)];
  if (h > 23 || min > 59 || s > 60) return undefined; // 60: a leap second, RFC 9110 5.6.7
  const ms = Date.UTC(year, monthIndex, day, h, min, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over into March: refuse days the month does not have.
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}

/** An entity tag of a list: `W/"x"` is weak with opaque tag `"x"`. */
interface EntityTag {
  readonly weak: boolean;
  readonly opaque: string;
}

/**
 * Parses `If-Match` / `If-None-Match`: `*`, or a list of entity tags (RFC 9110 8.8.3). A
 * tag may hold commas (`"a,b"`), so the list is read tag by tag. Undefined when malformed.
 */
export function parseEntityTagList(value: string): '*' | EntityTag[] | undefined {
  if (value.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  const item = /\s*(?:(W\/)?("[\x21\x23-\x7e\x80-\xff]*"))?\s*(?:,|$)/y;
  let at = 0;
  while (at < value.length) {
    item.lastIndex = at;
    const m = item.exec(value);
    if (!m || m[0] === '') return undefined;
    if (m[2] !== undefined) tags.push({ weak: m[1] !== undefined, opaque: m[2] });
    at = item.lastIndex;
  }
  return tags;
}

/** Strong comparison (RFC 9110 8.8.3.2): both strong and the same opaque tag. */
function matchesStrongly(tags: '*' | EntityTag[] | undefined, etag: string): boolean {
  if (tags === '*') return true;
  return tags?.some((t) => !t.weak && t.opaque === etag) ?? false;
}

/** Weak comparison: the same opaque tag, weak or not. */
function matchesWeakly(tags: '*' | EntityTag[] | undefined, etag: string): boolean {
  if (tags === '*') return true;
  return tags?.some((t) => t.opaque === etag) ?? false;
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
    if (!matchesStrongly(parseEntityTagList(fields.ifMatch), etag)) return 'failed';
  } else if (fields.ifUnmodifiedSince !== undefined) {
    const since = parseHttpDate(fields.ifUnmodifiedSince, now);
    if (since !== undefined && lastModified > since) return 'failed';
  }
  if (fields.ifNoneMatch !== undefined) {
    return matchesWeakly(parseEntityTagList(fields.ifNoneMatch), etag) ? 'notModified' : 'proceed';
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
  const text = value.trim();
  // RFC 9110 13.1.5: a DQUOTE or `W/` at the start tells an entity tag from a date.
  if (text.startsWith('"') || text.startsWith('W/')) return text === validators.etag;
  const date = parseHttpDate(text, now);
  return date !== undefined && date === validators.lastModified;
}

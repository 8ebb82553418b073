/**
 * HTTP-dates (RFC 9110 5.6.7), pure: writing the IMF-fixdate and reading all three formats a
 * recipient must accept. Read by position, never by a regex; a value longer than any date is
 * refused as soon as its surrounding whitespace is trimmed.
 */
import { trimOws } from './scan.js';

/** Longer than the longest date (`Wednesday, 09-Nov-94 08:49:37 GMT` is 33): not a date. */
export const MAX_HTTP_DATE_LENGTH = 64;

const SHORT_DAYS: readonly string[] = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const LONG_DAYS: readonly string[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS: readonly string[] = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE_LENGTH = 29;
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME_LENGTH = 24;
/** `, 06-Nov-94 08:49:37 GMT`: what follows the day name of an RFC 850 date. */
const RFC850_REST_LENGTH = 24;
/** RFC 850 years have two digits: one more than this many years ahead lies in the past century. */
const RFC850_YEARS_AHEAD = 50;

/** An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the one format HTTP senders use. */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * Parses an HTTP-date in any of the three formats RFC 9110 5.6.7 requires recipients to
 * accept; undefined for anything else (so `If-Modified-Since: 1` is ignored rather than read as
 * some year). `now` places RFC 850's two-digit years: one more than 50 years ahead is in the past.
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  const text = trimOws(value);
  if (text.length > MAX_HTTP_DATE_LENGTH) return undefined;
  const comma = text.indexOf(',');
  if (comma === 3 && text.length === IMF_FIXDATE_LENGTH) return parseImfFixdate(text);
  if (comma > 3 && text.length === comma + RFC850_REST_LENGTH) return parseRfc850(text, comma, now);
  if (comma < 0 && text.length === ASCTIME_LENGTH) return parseAsctime(text);
  return undefined;
}

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
function parseImfFixdate(text: string): number | undefined {
  if (!SHORT_DAYS.includes(text.slice(0, 3)) || !text.startsWith(', ', 3) || !text.endsWith(' GMT')) return undefined;
  if (text[7] !== ' ' || text[11] !== ' ' || text[16] !== ' ') return undefined;
  const day = digits(text, 5, 2);
  const year = digits(text, 12, 4);
  if (day === undefined || year === undefined) return undefined;
  return utc(year, text.slice(8, 11), day, text, 17);
}

/** `Sunday, 06-Nov-94 08:49:37 GMT`; `comma` is where the day name ends. */
function parseRfc850(text: string, comma: number, now: number): number | undefined {
  if (!LONG_DAYS.includes(text.slice(0, comma)) || !text.startsWith(', ', comma) || !text.endsWith(' GMT')) return undefined;
  const at = comma + 2;
  if (text[at + 2] !== '-' || text[at + 6] !== '-' || text[at + 9] !== ' ') return undefined;
  const day = digits(text, at, 2);
  const twoDigitYear = digits(text, at + 7, 2);
  if (day === undefined || twoDigitYear === undefined) return undefined;
  const currentYear = new Date(now).getUTCFullYear();
  let year = currentYear - (currentYear % 100) + twoDigitYear;
  if (year > currentYear + RFC850_YEARS_AHEAD) year -= 100;
  return utc(year, text.slice(at + 3, at + 6), day, text, at + 10);
}

/** `Sun Nov  6 08:49:37 1994`: a one-digit day is padded with a space. */
function parseAsctime(text: string): number | undefined {
  if (!SHORT_DAYS.includes(text.slice(0, 3)) || text[3] !== ' ' || text[7] !== ' ' || text[10] !== ' ' || text[19] !== ' ') {
    return undefined;
  }
  const day = text[8] === ' ' ? digits(text, 9, 1) : digits(text, 8, 2);
  const year = digits(text, 20, 4);
  if (day === undefined || year === undefined) return undefined;
  return utc(year, text.slice(4, 7), day, text, 11);
}

/**
 * The instant of a date whose `HH:MM:SS` starts at `timeAt`; undefined for a month name, hour,
 * minute or second out of range, or a day the month does not have.
 */
function utc(year: number, month: string, day: number, text: string, timeAt: number): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  if (monthIndex < 0 || text[timeAt + 2] !== ':' || text[timeAt + 5] !== ':') return undefined;
  const hours = digits(text, timeAt, 2);
  const minutes = digits(text, timeAt + 3, 2);
  const seconds = digits(text, timeAt + 6, 2);
  if (hours === undefined || minutes === undefined || seconds === undefined) return undefined;
  if (hours > 23 || minutes > 59 || seconds > 60) return undefined; // 60: a leap second, RFC 9110 5.6.7
  const ms = Date.UTC(year, monthIndex, day, hours, minutes, Math.min(seconds, 59));
  // Date.UTC rolls 31 Feb over into March: refuse days the month does not have.
  return new Date(ms).getUTCDate() === day ? ms : undefined;
}

/** The number written by `count` ASCII digits at `at`, or undefined when one is not a digit. */
function digits(text: string, at: number, count: number): number | undefined {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (!(d >= 0 && d <= 9)) return undefined;
    n = n * 10 + d;
  }
  return n;
}

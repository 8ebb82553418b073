/**
 * POSIX TZ rule strings (`CET-1CEST,M3.5.0,M10.5.0/3`), as the footer of a TZif file gives them
 * for every instant after its last transition (RFC 8536 3.3, with its extensions: `<+03>` names,
 * rule times from -167 to 167 hours). Pure: a string in, UTC offsets out.
 */

/** A UTC offset in seconds east of Greenwich at each instant, given in whole seconds since the epoch. */
export type OffsetAt = (epochSeconds: number) => number;

/** `M3.5.0` (month, week 1-5 with 5 the last, weekday 0 = Sunday), `J60` (1-365, no 29 February) or `59` (0-365). */
type DateRule =
  | { readonly kind: 'month'; readonly month: number; readonly week: number; readonly weekday: number }
  | { readonly kind: 'julian'; readonly day: number }
  | { readonly kind: 'zeroBased'; readonly day: number };

interface Change {
  readonly date: DateRule;
  /** Seconds after the local midnight of the date, in the local time in force before the change. */
  readonly time: number;
}

const DAY_SECONDS = 86_400;
/** POSIX's default time of a change: 02:00 local. */
const DEFAULT_CHANGE_TIME = 7_200;

/**
 * The offsets a TZ rule string describes, or undefined when it is not one this reads (a zone
 * with daylight time but no rule for it leaves the choice to the implementation: not guessed).
 */
export function parsePosixTz(text: string): OffsetAt | undefined {
  const scan = { text, at: 0 };
  if (!skipName(scan)) return undefined;
  const std = readClock(scan, 24);
  if (std === undefined) return undefined;
  const standard = 0 - std; // POSIX counts west of Greenwich as positive (0 - x: never -0)
  if (scan.at === text.length) return () => standard;
  if (!skipName(scan)) return undefined;
  let daylight = standard + 3_600;
  if (text[scan.at] !== ',') {
    const dst = readClock(scan, 24);
    if (dst === undefined) return undefined;
    daylight = 0 - dst;
  }
  if (text[scan.at] !== ',') return undefined;
  scan.at++;
  const start = readChange(scan);
  if (start === undefined || text[scan.at] !== ',') return undefined;
  scan.at++;
  const end = readChange(scan);
  if (end === undefined || scan.at !== text.length) return undefined;
  return (epochSeconds) => offsetAt(epochSeconds, standard, daylight, start, end);
}

/**
 * The offset at an instant: the last change at or before it among those of the years around
 * it decides (a southern zone's daylight time spans the new year; `J365/25` starts one on the
 * year's first day and never ends it).
 */
function offsetAt(epochSeconds: number, standard: number, daylight: number, start: Change, end: Change): number {
  const year = new Date(epochSeconds * 1000).getUTCFullYear();
  if (Number.isNaN(year)) return standard;
  let latest = -Infinity;
  let offset = standard;
  for (let y = year - 1; y <= year + 1; y++) {
    // The start is given in standard time, the end in daylight time.
    const begins = changeInstant(y, start, standard);
    const ends = changeInstant(y, end, daylight);
    // `>=`: where a year's end meets the next year's start (`J365/25`), the later rule wins.
    if (begins <= epochSeconds && begins >= latest) [latest, offset] = [begins, daylight];
    if (ends <= epochSeconds && ends >= latest) [latest, offset] = [ends, standard];
  }
  return offset;
}

/** The UTC instant (seconds) of a change in `year`, its time read in the offset in force before it. */
function changeInstant(year: number, change: Change, before: number): number {
  const newYear = Date.UTC(year, 0, 1) / 1000;
  return newYear + dayOfYear(year, change.date) * DAY_SECONDS + change.time - before;
}

/** The 0-based day of the year a date rule names. */
function dayOfYear(year: number, date: DateRule): number {
  switch (date.kind) {
    case 'zeroBased':
      return date.day;
    case 'julian':
      // J60 is 1 March even in a leap year: 29 February is never counted.
      return date.day - 1 + (isLeapYear(year) && date.day >= 60 ? 1 : 0);
    case 'month': {
      const first = Date.UTC(year, date.month - 1, 1);
      const firstWeekday = new Date(first).getUTCDay();
      let day = 1 + ((date.weekday - firstWeekday + 7) % 7) + (date.week - 1) * 7;
      const length = new Date(Date.UTC(year, date.month, 0)).getUTCDate();
      while (day > length) day -= 7; // week 5: the last such weekday of the month
      return (first - Date.UTC(year, 0, 1)) / (DAY_SECONDS * 1000) + day - 1;
    }
  }
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

interface Scan {
  readonly text: string;
  at: number;
}

/** `CET` (three letters or more) or `<+0330>` (quoted): true when one was skipped. */
function skipName(scan: Scan): boolean {
  const { text } = scan;
  if (text[scan.at] === '<') {
    const close = text.indexOf('>', scan.at);
    if (close < 0 || close - scan.at < 4) return false;
    scan.at = close + 1;
    return true;
  }
  const from = scan.at;
  while (scan.at < text.length && isLetter(text.charCodeAt(scan.at))) scan.at++;
  return scan.at - from >= 3;
}

/** `[+-]hh[:mm[:ss]]` as seconds, hours at most `maxHours`; undefined when malformed. */
function readClock(scan: Scan, maxHours: number): number | undefined {
  const { text } = scan;
  let sign = 1;
  if (text[scan.at] === '+' || text[scan.at] === '-') sign = text[scan.at++] === '-' ? -1 : 1;
  const hours = readNumber(scan, 3);
  if (hours === undefined || hours > maxHours) return undefined;
  let seconds = hours * 3_600;
  for (const unit of [60, 1]) {
    if (text[scan.at] !== ':') break;
    scan.at++;
    const value = readNumber(scan, 2);
    if (value === undefined || value > 59) return undefined;
    seconds += value * unit;
  }
  return sign * seconds;
}

/** `M3.5.0/3`, `J60`, `59/-1`: a date rule and its optional time (RFC 8536's -167 to 167 hours). */
function readChange(scan: Scan): Change | undefined {
  const date = readDate(scan);
  if (date === undefined) return undefined;
  if (scan.text[scan.at] !== '/') return { date, time: DEFAULT_CHANGE_TIME };
  scan.at++;
  const time = readClock(scan, 167);
  return time === undefined ? undefined : { date, time };
}

function readDate(scan: Scan): DateRule | undefined {
  const { text } = scan;
  if (text[scan.at] === 'M') {
    scan.at++;
    const month = readNumber(scan, 2);
    if (text[scan.at++] !== '.') return undefined;
    const week = readNumber(scan, 1);
    if (text[scan.at++] !== '.') return undefined;
    const weekday = readNumber(scan, 1);
    if (month === undefined || week === undefined || weekday === undefined) return undefined;
    if (month < 1 || month > 12 || week < 1 || week > 5 || weekday > 6) return undefined;
    return { kind: 'month', month, week, weekday };
  }
  if (text[scan.at] === 'J') {
    scan.at++;
    const day = readNumber(scan, 3);
    return day === undefined || day < 1 || day > 365 ? undefined : { kind: 'julian', day };
  }
  const day = readNumber(scan, 3);
  return day === undefined || day > 365 ? undefined : { kind: 'zeroBased', day };
}

/** One to `maxDigits` decimal digits. */
function readNumber(scan: Scan, maxDigits: number): number | undefined {
  const from = scan.at;
  while (scan.at < scan.text.length && scan.at - from < maxDigits && isDigit(scan.text.charCodeAt(scan.at))) scan.at++;
  return scan.at === from ? undefined : Number(scan.text.slice(from, scan.at));
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isLetter(code: number): boolean {
  return (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
}

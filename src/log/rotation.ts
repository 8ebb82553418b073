/**
 * Pure rules of the daily log files: which file an instant belongs to, when the next day
 * starts in the log time zone, and which files retention deletes. Time is always an argument.
 */
import { literalPattern } from '../util/literal-pattern.js';
import { ZonedTime, zonedTimeOf } from './zoned-time.js';

/** `2026-03-29`: the calendar date of an instant in `timeZone`. */
export function localDate(instant: number, timeZone: string): string {
  return new ZonedTime(timeZone).date(instant);
}

/** `prod-2026-03-29.log`: the file that lines logged at `instant` go to. */
export function logFileName(appEnv: string, instant: number, timeZone: string): string {
  return dailyLogFileName(appEnv, localDate(instant, timeZone));
}

/** `prod-2026-03-29.log`, `prod-access-2026-03-29.log`: the file of a stem and a local date. */
export function dailyLogFileName(stem: string, date: string): string {
  return `${stem}-${date}.log`;
}

/** `prod-access`: the stem of the access log's files, `prod-access-2026-03-29.log`. */
export function accessLogStem(appEnv: string): string {
  return `${appEnv}-access`;
}

const DAY_MS = 86_400_000;

/**
 * The first instant after `instant` whose local date in `timeZone` differs: the next local
 * midnight, or the first existing instant of the next day where midnight is skipped by a DST
 * change. Days are 23 or 25 hours long on DST days, so this searches rather than adds 24 h.
 */
export function nextMidnight(instant: number, timeZone: string): number {
  return nextMidnightIn(new ZonedTime(timeZone), instant);
}

/** nextMidnight with the zone's formatter given: the search reads about 20 instants. */
function nextMidnightIn(zoned: ZonedTime, instant: number): number {
  const today = zoned.date(instant);
  // Whole seconds: every zone's day boundary falls on one.
  let low = Math.floor(instant / 1000);
  let high = low + Math.ceil((2 * DAY_MS) / 1000);
  while (zoned.date(high * 1000) === today) high += DAY_MS / 1000;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zoned.date(middle * 1000) === today) low = middle;
    else high = middle;
  }
  return high * 1000;
}

/**
 * `^<stem>-YYYY-MM-DD\.log$`: the only names retention may ever touch. The error log's
 * `^prod-\d{4}…` never matches `prod-access-…` (a letter where a digit must be), and the access
 * log's never matches `prod-2026-…`; APP_ENV is one of dev, prod, test, so no env is named
 * like another's access stem.
 */
export function logFilePattern(stem: string): RegExp {
  return new RegExp(`^${literalPattern(stem)}-\\d{4}-\\d{2}-\\d{2}\\.log$`);
}

/**
 * The names to delete so that the newest `maxFiles` daily files of `stem` remain, the file of
 * `writing` (the date being written) always among them: a clock that once ran ahead leaves files
 * dated after today, and they must not push out the file in use. Every other name (another
 * env's files, the other log's, backups, compressed files) is left alone.
 */
export function pruneList(fileNames: readonly string[], stem: string, maxFiles: number, writing?: string): string[] {
  const pattern = logFilePattern(stem);
  const current = writing === undefined ? undefined : dailyLogFileName(stem, writing);
  // Dates are zero-padded, so name order is date order.
  const others = fileNames.filter((name) => pattern.test(name) && name !== current).sort().reverse();
  const kept = current === undefined ? maxFiles : Math.max(0, maxFiles - 1);
  return others.slice(kept);
}

/** `prod-2030-01-01.log`, ...: the daily files of `stem` dated after `today`, oldest first. */
export function futureDated(fileNames: readonly string[], stem: string, today: string): string[] {
  const pattern = logFilePattern(stem);
  const todayName = dailyLogFileName(stem, today);
  return fileNames.filter((name) => pattern.test(name) && name > todayName).sort();
}

/**
 * The local date of each instant in a flood of them: computed again only past the cached next
 * midnight or when the clock went back, so most lines cost one comparison.
 */
export class LocalDates {
  readonly #zoned: ZonedTime;
  #date = '';
  #boundary = -Infinity;
  #last = -Infinity;

  /** `zone`: a zone name, or a ZonedTime made already (its zone file is then not read again). */
  constructor(zone: string | ZonedTime) {
    this.#zoned = zonedTimeOf(zone);
  }

  /** `2026-03-29`: the date of `instant` in the time zone. */
  dateOf(instant: number): string {
    if (instant >= this.#boundary || instant < this.#last) {
      this.#date = this.#zoned.date(instant);
      this.#boundary = nextMidnightIn(this.#zoned, instant);
    }
    this.#last = instant;
    return this.#date;
  }

  /** The instant the latest date asked for ends (-Infinity before the first question). */
  get nextMidnight(): number {
    return this.#boundary;
  }
}

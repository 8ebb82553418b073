/**
 * Wall-clock time in a time zone (the log's LOG_TIMEZONE): the parts of an instant, the error
 * log's `YYYY-MM-DD HH:MM:SS` timestamp and the access log's ISO 8601 one with its UTC offset.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTzif, type OffsetAt } from './tzif.js';

export type { OffsetAt } from './tzif.js';

/** The wall-clock parts of an instant, zero-padded. */
export type ZonedParts = Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;

/** Where the system keeps its TZif files (RFC 8536), one per zone name, unless TZDIR says otherwise (as for the C library). */
const ZONEINFO_DIR = '/usr/share/zoneinfo';

/** `Europe/Madrid`, `Etc/GMT+1`, `UTC`: names that stay inside ZONEINFO_DIR (no `..`, no leading `/`). */
const ZONE_NAME = /^[A-Za-z0-9_+-]+(?:\/[A-Za-z0-9_+-]+)*$/;

/**
 * The UTC offsets (seconds) of a zone: from the system's TZif file when there is one this
 * reads, else from Intl. A formatter of Intl's costs a process about 8 MiB of resident memory
 * and 20 ms on first use (ICU's code and data paged in) where the file costs a 3 KiB read: the
 * logs stamp every line, so this decides whether a service that logs pays them at all.
 */
export function zoneOffsets(timeZone: string, zoneinfoDir: string = process.env.TZDIR || ZONEINFO_DIR): OffsetAt {
  if (ZONE_NAME.test(timeZone)) {
    try {
      const offsets = parseTzif(readFileSync(join(zoneinfoDir, timeZone)));
      if (offsets !== undefined) return offsets;
    } catch {
      // No database on this system (or not this zone): Intl has its own.
    }
  }
  return intlOffsets(timeZone);
}

/** The offsets of a zone read from an Intl formatter's wall clock (any zone ICU knows). */
export function intlOffsets(timeZone: string): OffsetAt {
  const formatter = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return (epochSeconds) => {
    const p = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
    for (const part of formatter.formatToParts(epochSeconds * 1000)) {
      if (part.type in p) p[part.type as keyof typeof p] = Number(part.value);
    }
    const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) / 1000;
    return wall - epochSeconds;
  };
}

/**
 * Reads instants in one time zone: the wall clock is the UTC clock moved by the zone's offset at
 * that instant (zoneOffsets). Whoever reads many instants (a logger, a day-boundary search, a
 * profiler page) makes one of these and keeps it.
 */
export class ZonedTime {
  readonly timeZone: string;
  readonly #offsetAt: OffsetAt;

  /** `offsets` defaults to the zone's (zoneOffsets); tests pass Intl's to compare. */
  constructor(timeZone: string, offsets: OffsetAt = zoneOffsets(timeZone)) {
    this.timeZone = timeZone;
    this.#offsetAt = offsets;
  }

  /** The wall-clock parts of `instant` (whole seconds: milliseconds are cut). */
  parts(instant: number): ZonedParts {
    const seconds = Math.floor(instant / 1000);
    const wall = new Date((seconds + this.#offsetAt(seconds)) * 1000);
    if (Number.isNaN(wall.getTime())) throw new RangeError('Invalid time value');
    return {
      year: String(wall.getUTCFullYear()),
      month: twoDigits(wall.getUTCMonth() + 1),
      day: twoDigits(wall.getUTCDate()),
      hour: twoDigits(wall.getUTCHours()),
      minute: twoDigits(wall.getUTCMinutes()),
      second: twoDigits(wall.getUTCSeconds()),
    };
  }

  /** Seconds east of UTC in force at `instant`. */
  offsetAt(instant: number): number {
    return this.#offsetAt(Math.floor(instant / 1000));
  }

  /** `2026-03-29 03:00:00`: the log's timestamp of `instant`. */
  timestamp(instant: number): string {
    const p = this.parts(instant);
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  }

  /**
   * `2026-03-29T03:00:00+02:00`: the second of `instant` in ISO 8601, with the zone's offset from
   * UTC at that instant (read from the wall clock, so DST and every rule change are the zone's).
   */
  isoTimestamp(instant: number): string {
    const p = this.parts(instant);
    const offsetMinutes = Math.round(this.offsetAt(instant) / 60);
    return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${formatOffset(offsetMinutes)}`;
  }

  /** `2026-03-29`: the calendar date of `instant`. */
  date(instant: number): string {
    const p = this.parts(instant);
    return `${p.year}-${p.month}-${p.day}`;
  }
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/**
 * A zone's ZonedTime: made from its name, or the one given, so that the readers of one log share
 * one zone file read and parsed.
 */
export function zonedTimeOf(zone: string | ZonedTime): ZonedTime {
  return typeof zone === 'string' ? new ZonedTime(zone) : zone;
}

/** `+01:00`, `-03:30`, `+00:00`: an offset from UTC as ISO 8601 writes it (never `Z`, always 6 characters). */
function formatOffset(minutes: number): string {
  const magnitude = Math.abs(minutes);
  const hours = String(Math.floor(magnitude / 60)).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${hours}:${String(magnitude % 60).padStart(2, '0')}`;
}

/** The wall-clock parts of an instant in a time zone (one instant; see ZonedTime for many). */
export function zonedParts(instant: number, timeZone: string): ZonedParts {
  return new ZonedTime(timeZone).parts(instant);
}

/** `2026-03-29 03:00:00` for an instant, local to `timeZone` (one instant; see ZonedTime for many). */
export function formatTimestamp(instant: number, timeZone: string): string {
  return new ZonedTime(timeZone).timestamp(instant);
}

/**
 * Times on the profiler's pages as the log file writes them, local to LOG_TIMEZONE, with the
 * zone's offset at that instant so a reader can compare them with any other clock.
 */
import { ZonedTime } from '../log/index.js';

const MS_PER_MINUTE = 60_000;

/** `2026-03-29 03:00:00 +02:00` for an instant in `timeZone`. */
export function formatProfileTime(instant: number, timeZone: string): string {
  return formatProfileTimeIn(new ZonedTime(timeZone), instant);
}

/** formatProfileTime with the zone's formatter given, for a page of many times. */
export function formatProfileTimeIn(zoned: ZonedTime, instant: number): string {
  const p = zoned.parts(instant);
  const wallClock = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  // The wall clock has whole seconds; the instant's milliseconds are no part of the offset.
  const offsetMinutes = Math.round((wallClock - Math.floor(instant / 1000) * 1000) / MS_PER_MINUTE);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${zoned.timestamp(instant)} ${sign}${hours}:${minutes}`;
}

/**
 * Log lines: `<YYYY-MM-DD HH:MM:SS> <channel>.<LEVEL>: <message>`, the timestamp local to the
 * log time zone, one entry per line whatever the message holds.
 */
import { formatOncePerSecond } from './once-per-second.js';

export type LogLevel = 'DEBUG' | 'INFO' | 'NOTICE' | 'WARNING' | 'ERROR' | 'CRITICAL';

/** Where the service writes its log lines; sinks differ, the line format does not. */
export interface Logger {
  log(channel: string, level: LogLevel, message: string): void;
  /** Resolves once every line logged so far is written. */
  flush(): Promise<void>;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock parts of an instant in a time zone. */
export function zonedParts(instant: number, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const parts = { year: '', month: '', day: '', hour: '', minute: '', second: '' };
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type in parts) parts[part.type as keyof typeof parts] = part.value;
  }
  return parts;
}

/** `2026-03-29 03:00:00` for an instant, local to `timeZone`. */
export function formatTimestamp(instant: number, timeZone: string): string {
  const p = zonedParts(instant, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Escapes CR, LF, ESC and every other control character so an entry stays on one line. */
export function escapeControl(message: string): string {
  return message.replace(CONTROL, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One whole line, newline included. */
export function formatLine(timestamp: string, channel: string, level: LogLevel, message: string): string {
  return `${timestamp} ${channel}.${level}: ${escapeControl(message)}\n`;
}

/** Timestamps for a flood of lines: formatted once a second. */
export function createTimestamper(timeZone: string): (instant: number) => string {
  return formatOncePerSecond((secondStart) => formatTimestamp(secondStart, timeZone));
}

/** A logger that writes whole lines to a stream (stderr until a file sink is set up). */
export function createStreamLogger(
  stream: NodeJS.WritableStream,
  timeZone: string,
  clock: () => number = Date.now,
): Logger {
  const stamp = createTimestamper(timeZone);
  return {
    log(channel, level, message) {
      stream.write(formatLine(stamp(clock()), channel, level, message));
    },
    flush() {
      return new Promise((resolve) => stream.write('', () => resolve()));
    },
  };
}

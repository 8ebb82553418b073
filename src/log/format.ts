/**
 * Log lines: `<YYYY-MM-DD HH:MM:SS> <channel>.<LEVEL>: <message>`, the timestamp local to the
 * log time zone, one entry per line whatever the message holds. Pure: sinks write the lines.
 *
 * A sink that writes request ids ends a line logged for a request with its id, as Monolog's
 * LineFormatter writes a record's context after the message:
 * `2026-11-22 03:00:00 request.ERROR: No route found for "GET /x" {"request_id":"4f1c…"}`.
 * What precedes it is the observed line, unchanged (docs/logs.md, "Logs").
 */
import { formatOncePerSecond } from '../util/once-per-second.js';
import { ZonedTime, zonedTimeOf } from './zoned-time.js';

export type LogLevel = 'DEBUG' | 'INFO' | 'NOTICE' | 'WARNING' | 'ERROR' | 'CRITICAL';

/** Where the service writes its log lines; sinks differ, the line format does not. */
export interface Logger {
  /**
   * Logs one entry; `requestId` is the id (`X-Request-Id`) of the request it was logged for, if
   * any, which a sink may write (`requestIds` of the file and stream sinks).
   */
  log(channel: string, level: LogLevel, message: string, requestId?: string): void;
  /** Resolves once every line logged so far is written. */
  flush(): Promise<void>;
}

/** The longest line written, timestamp, channel, level and newline included. */
export const MAX_LINE_BYTES = 8192;

/** C0, DEL, C1 and the two Unicode line breaks: each would end or corrupt a line. */
function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

const NAMED_ESCAPES: Readonly<Record<number, string>> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };
const hexEscape = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
/** The escapes of U+0000..U+009F, built once: a flood of control characters allocates nothing new. */
const LOW_ESCAPES: readonly string[] = Array.from({ length: 0xa0 }, (_, code) => NAMED_ESCAPES[code] ?? hexEscape(code));

const escapeOf = (code: number) => LOW_ESCAPES[code] ?? hexEscape(code);

/** Any character isControl accepts: most messages have none, and one native scan says so. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Escapes CR, LF, ESC and every other control character so an entry stays on one line; U+FFFD
 * and every other printable character pass unchanged. Linear: runs of plain text are appended
 * as slices (V8 joins appended strings lazily, so appends cost no copy each).
 */
export function escapeControl(message: string): string {
  if (!CONTROL.test(message)) return message;
  let out = '';
  let from = 0;
  for (let i = 0; i < message.length; i++) {
    const code = message.charCodeAt(i);
    if (!isControl(code)) continue;
    if (i > from) out += message.slice(from, i);
    out += escapeOf(code);
    from = i + 1;
  }
  return from === 0 ? message : out + message.slice(from);
}

/** UTF-8 bytes of the escaped form of one code unit; a lone surrogate is written as U+FFFD. */
function escapedBytes(code: number): number {
  if (isControl(code)) return escapeOf(code).length;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return 3;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The longest start of `message` whose escaped form fits in `room` bytes (`room` Infinity: the
 * whole message): code units kept and their escaped bytes. Whole characters and whole escapes
 * only, never half a surrogate pair.
 */
function measureEscaped(message: string, room: number): { units: number; bytes: number } {
  let bytes = 0;
  for (let i = 0; i < message.length; ) {
    const code = message.charCodeAt(i);
    const pair = isHighSurrogate(code) && isLowSurrogate(message.charCodeAt(i + 1));
    const size = pair ? 4 : escapedBytes(code);
    if (bytes + size > room) return { units: i, bytes };
    bytes += size;
    i += pair ? 2 : 1;
  }
  return { units: message.length, bytes };
}

/** `… [1234 bytes cut]`: what ends a text cut to fit its line, in both logs. */
export const cutMarker = (bytesCut: number) => `… [${bytesCut} bytes cut]`;

/**
 * The escaped message, cut to fit in `room` bytes: a longer one keeps its start, cut between
 * characters and never inside an escape, and ends with a marker giving the escaped bytes left out.
 */
function fitMessage(message: string, room: number): string {
  // Every code unit escapes to at most 6 bytes: most messages need no measuring.
  if (message.length * 6 <= room) return escapeControl(message);
  const total = measureEscaped(message, Infinity).bytes;
  if (total <= room) return escapeControl(message);
  // The marker's length depends on the count cut. The whole length's digits are an upper
  // bound; a second try with the marker that bound gives keeps more, and cuts no more.
  let kept = measureEscaped(message, Math.max(0, room - Buffer.byteLength(cutMarker(total))));
  const shorter = Buffer.byteLength(cutMarker(total - kept.bytes));
  if (shorter < Buffer.byteLength(cutMarker(total))) kept = measureEscaped(message, Math.max(0, room - shorter));
  return escapeControl(message.slice(0, kept.units)) + cutMarker(total - kept.bytes);
}

/** The longest request id a line writes whole: the longest a trusted proxy's may be (`http/request-id.ts`). */
export const MAX_LOGGED_REQUEST_ID_LENGTH = 128;

/**
 * Ids as the service keeps them (letters, digits, `.`, `_`, `-`) and as masking leaves them
 * (`*`), at most MAX_LOGGED_REQUEST_ID_LENGTH long: written as they are, no JSON escaping needed.
 */
const PLAIN_REQUEST_ID = /^[A-Za-z0-9._*-]{1,128}$/;

/**
 * What ends a line logged for request `requestId`, newline included: ` {"request_id":"…"}`. Any
 * other id (a library caller's) is cut to MAX_LOGGED_REQUEST_ID_LENGTH code units and written as
 * a JSON string whose control characters are escaped, so the line stays one valid line.
 */
function requestIdEnd(requestId: string): string {
  const text = PLAIN_REQUEST_ID.test(requestId)
    ? requestId
    : escapeControl(JSON.stringify(requestId.slice(0, MAX_LOGGED_REQUEST_ID_LENGTH)).slice(1, -1));
  return ` {"request_id":"${text}"}\n`;
}

/**
 * One whole line, newline included, at most MAX_LINE_BYTES long: a longer message is cut (see
 * fitMessage), never the request id that ends it (see requestIdEnd). Channel and level are the
 * service's own short names, never request text.
 */
export function formatLine(timestamp: string, channel: string, level: LogLevel, message: string, requestId?: string): string {
  const head = `${timestamp} ${channel}.${level}: `;
  const end = requestId === undefined ? '\n' : requestIdEnd(requestId);
  // Every code unit is at most 3 bytes, and escapes to at most 6: most lines need no measuring.
  const fits = (head.length + end.length) * 3 + message.length * 6 <= MAX_LINE_BYTES;
  return `${head}${fits ? escapeControl(message) : fitMessage(message, MAX_LINE_BYTES - Buffer.byteLength(head) - Buffer.byteLength(end))}${end}`;
}

/**
 * Timestamps for a flood of lines: formatted once a second. `zone` is a zone name, or the
 * ZonedTime a sink made already (one zone file read and parsed per sink, not one per reader).
 */
export function createTimestamper(zone: string | ZonedTime): (instant: number) => string {
  const zoned = zonedTimeOf(zone);
  return formatOncePerSecond((secondStart) => zoned.timestamp(secondStart));
}

/** The farthest instant from the epoch a Date holds (ECMA-262 21.4.1.1). */
const MAX_DATE_MS = 8.64e15;

/**
 * `2026-11-26T02:06:46.123+01:00` for a flood of lines: the second and its offset are formatted
 * once a second; each line adds its milliseconds (a fractional instant is cut to its millisecond).
 * An instant no Date holds (NaN) is `-`: a log line never throws. `zone` as for createTimestamper.
 */
export function createIsoTimestamper(zone: string | ZonedTime): (instant: number) => string {
  const zoned = zonedTimeOf(zone);
  // The second's text is kept cut in two around where the milliseconds go, and the milliseconds
  // come from a table: each line adds two strings, no slicing or padding (callgrind, mix).
  const millisTexts = Array.from({ length: 1000 }, (_, millis) => String(millis).padStart(3, '0'));
  let second = Number.NaN;
  let head = '';
  let offset = '';
  return (instant) => {
    const ms = Math.floor(instant);
    if (!(Math.abs(ms) <= MAX_DATE_MS)) return '-';
    const s = Math.floor(ms / 1000);
    if (s !== second) {
      const text = zoned.isoTimestamp(s * 1000);
      second = s;
      // The offset is the last 6 characters (`+01:00`): the milliseconds go before it.
      head = `${text.slice(0, -6)}.`;
      offset = text.slice(-6);
    }
    return head + millisTexts[ms - s * 1000]! + offset;
  };
}

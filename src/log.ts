/**
 * The service's logs, the door of `log/`: the error log's line format (`log/format.ts`), the
 * access log's JSON lines (`log/access-format.ts`), wall-clock time in the log time zone
 * (`log/zoned-time.ts`), the stream sink, the daily file sinks of both logs with their pure
 * rotation rules (`log/rotation.ts`), and the throttle for floods of like lines.
 *
 * The access log's modules are not re-exported: `importAccessLog` loads them, so that a service
 * with ACCESS_LOG=0 never reads them.
 */
export { createIsoTimestamper, createTimestamper, escapeControl, formatLine, MAX_LINE_BYTES, type Logger, type LogLevel } from './log/format.js';
export { formatTimestamp, zonedParts, ZonedTime, type ZonedParts } from './log/zoned-time.js';
export { createStreamLogger } from './log/stream-sink.js';
export type { LineCounts } from './log/daily-file-sink.js';
export { createFileLogger, type FileLogger, type FileLoggerOptions } from './log/file-sink.js';
export type { AccessRecord } from './log/access-format.js';
export type { AccessLog, AccessLogOptions } from './log/access-log.js';
export { accessLogStem, logFileName, nextMidnight, pruneList } from './log/rotation.js';
export { createThrottledLog, summaryLine, THROTTLE_WINDOW_MS, type ThrottledLog } from './log/throttle.js';

/** The access log's module (`createAccessLog`), imported only when ACCESS_LOG is on. */
export function importAccessLog(): Promise<typeof import('./log/access-log.js')> {
  return import('./log/access-log.js');
}

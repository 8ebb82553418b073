/**
 * The service's logs, the door of `log/`: the error log's line format (`log/format.ts`), the
 * access log's JSON lines (`log/access-format.ts`), wall-clock time in the log time zone
 * (`log/zoned-time.ts`), the stream sink, the daily file sinks of both logs with their pure
 * rotation rules (`log/rotation.ts`), and the throttle for floods of like lines.
 *
 * The access log's modules are not re-exported: `importAccessLog` loads them, so that a service
 * with ACCESS_LOG=0 never reads them.
 */
export { createIsoTimestamper, createTimestamper, escapeControl, formatLine, MAX_LINE_BYTES, type Logger, type LogLevel } from './format.js';
export { formatTimestamp, zonedParts, ZonedTime, type ZonedParts } from './zoned-time.js';
export { createStreamLogger } from './stream-sink.js';
export type { LineCounts } from './batch-planner.js';
export { createFileLogger, type FileLogger, type FileLoggerOptions } from './file-sink.js';
export type { AccessRecord } from './access-format.js';
export type { AccessLog, AccessLogOptions } from './access-log.js';
export { accessLogStem, logFileName, nextMidnight, pruneList } from './rotation.js';
export { createThrottledLog, summaryLine, THROTTLE_WINDOW_MS, type ThrottledLog } from './throttle.js';

/** The access log's module (`createAccessLog`), imported only when ACCESS_LOG is on. */
export function importAccessLog(): Promise<typeof import('./access-log.js')> {
  return import('./access-log.js');
}
export { createConfiguredAccessLog, createConfiguredFileLogger } from './log-files.js';

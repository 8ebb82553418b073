/**
 * The service's log, the door of `log/`: the line format (`log/format.ts`), wall-clock time in
 * the log time zone (`log/zoned-time.ts`), the stream sink and the daily file sink with its pure
 * rotation rules (`log/rotation.ts`), and the throttle for floods of like lines.
 */
export { createTimestamper, escapeControl, formatLine, MAX_LINE_BYTES, type Logger, type LogLevel } from './log/format.js';
export { formatTimestamp, zonedParts, ZonedTime, type ZonedParts } from './log/zoned-time.js';
export { createStreamLogger } from './log/stream-sink.js';
export { createFileLogger, type FileLogger, type FileLoggerOptions } from './log/file-sink.js';
export { logFileName, nextMidnight, pruneList } from './log/rotation.js';
export { createThrottledLog, summaryLine, THROTTLE_WINDOW_MS, type ThrottledLog } from './log/throttle.js';

/**
 * The error log's daily files: `<dir>/<env>-<YYYY-MM-DD>.log`, text lines (`format.ts`) written
 * by a daily file sink (`daily-file-sink.ts`), whose own notices are text lines of the `app`
 * channel.
 */
import { DEFAULT_LOG_MAX_BYTES } from '../config/index.js';
import type { DailyFileKind, LineCounts } from './batch-planner.js';
import { DailyFileSink, type DailyFileOptions } from './daily-file-sink.js';
import { createTimestamper, formatLine, type Logger } from './format.js';
import { zonedTimeOf } from './zoned-time.js';

export interface FileLoggerOptions extends DailyFileOptions {
  /** `prod`: the files are `prod-<YYYY-MM-DD>.log`. */
  readonly appEnv: string;
  /**
   * Ends each line logged for a request with its id, ` {"request_id":"…"}` (`format.ts`); off
   * by default, which writes the lines exactly as the original service did.
   */
  readonly requestIds?: boolean;
}

export interface FileLogger extends Logger {
  /** Writes what is queued synchronously: for the process's `exit` event only. */
  flushSync(): void;
  /** Flushes, then closes the file; later lines are written synchronously. */
  close(): Promise<void>;
  /** Lines written to the files and lines lost (the metrics `log_lines_*_total{file}` read them). */
  lineCounts(): LineCounts;
}

/** Creates the error log's sink and applies retention once; never throws for an unwritable directory. */
export function createFileLogger(options: FileLoggerOptions): FileLogger {
  // One reading of the zone file for the lines' timestamps and the sink's dates alike.
  const zoned = zonedTimeOf(options.zoned ?? options.timeZone);
  const stamp = createTimestamper(zoned);
  const kind: DailyFileKind = {
    stem: options.appEnv,
    what: 'log',
    notice: (instant, message) => formatLine(stamp(instant), 'app', 'WARNING', message),
  };
  const sink = new DailyFileSink({ ...options, zoned, maxBytes: options.maxBytes ?? DEFAULT_LOG_MAX_BYTES }, kind);
  const requestIds = options.requestIds === true;
  return {
    log(channel, level, message, requestId) {
      const instant = sink.now();
      sink.append(instant, formatLine(stamp(instant), channel, level, message, requestIds ? requestId : undefined));
    },
    flush: () => sink.flush(),
    flushSync: () => sink.flushSync(),
    close: () => sink.close(),
    lineCounts: () => sink.lineCounts(),
  };
}

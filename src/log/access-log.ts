/**
 * The access log's daily files: `<dir>/<env>-access-<YYYY-MM-DD>.log` beside the error log's,
 * one JSON line per answered request (`access-format.ts`), written by a daily file sink
 * (`daily-file-sink.ts`) with the error log's rotation, retention and byte cap. The sink's own
 * notices are JSON lines too: `{"time":"…","notice":"12 access log lines dropped: …"}`.
 */
import { writeAccessLine, type AccessRecord } from './access-format.js';
import { DailyFileSink, type DailyFileKind, type DailyFileSinkOptions, type LineCounts } from './daily-file-sink.js';
import { createIsoTimestamper } from './format.js';
import { escapeJsonLine } from './json-text.js';
import { accessLogStem } from './rotation.js';

export interface AccessLogOptions extends DailyFileSinkOptions {
  /** `prod`: the files are `prod-access-<YYYY-MM-DD>.log`. */
  readonly appEnv: string;
  /** Masks the configured secrets in a client's text (the service's masker). */
  readonly mask: (text: string) => string;
}

/** Where the server tells of each answered request. */
export interface AccessLog {
  /** Queues the request's line; the file is the day's (in the log time zone) when it is recorded. */
  record(entry: AccessRecord): void;
  /** Resolves once every line recorded so far is written (or writing is paused by a failure). */
  flush(): Promise<void>;
  /** Writes what is queued synchronously: for the process's `exit` event only. */
  flushSync(): void;
  /** Flushes, then closes the file; later lines are written synchronously. */
  close(): Promise<void>;
  /** Lines written to the files and lines lost (the metrics `log_lines_*_total{file}` read them). */
  lineCounts(): LineCounts;
}

/** `{"time":"2026-11-26T02:06:46.123+01:00","notice":"…"}` and a newline: the sink's own notice. */
export function formatAccessNotice(time: string, notice: string): string {
  return `${escapeJsonLine(JSON.stringify({ time, notice }))}\n`;
}

/** Creates the access log's sink and applies retention once; never throws for an unwritable directory. */
export function createAccessLog(options: AccessLogOptions): AccessLog {
  const stamp = createIsoTimestamper(options.timeZone);
  const kind: DailyFileKind = {
    stem: accessLogStem(options.appEnv),
    what: 'access log',
    notice: (instant, message) => formatAccessNotice(stamp(instant), message),
  };
  const sink = new DailyFileSink(options, kind);
  const mask = options.mask;
  return {
    record(entry) {
      const line = writeAccessLine(entry, stamp, mask);
      // The line is built by additions, which V8 keeps as a tree of its pieces until the text is
      // read; reading one character makes it one flat string now. Queued as a tree, 40,000
      // typical lines (16.7 MB) held 55.7 MB of heap, flat 18.0 MB: a full queue stays near its
      // byte bound. The copy is the one the batch's write would make anyway.
      line.text.charCodeAt(0);
      sink.append(sink.now(), line.text, line.bytes);
    },
    flush: () => sink.flush(),
    flushSync: () => sink.flushSync(),
    close: () => sink.close(),
    lineCounts: () => sink.lineCounts(),
  };
}

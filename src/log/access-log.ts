/**
 * The access log's daily files: `<dir>/<env>-access-<YYYY-MM-DD>.log` beside the error log's,
 * one JSON line per answered request (`access-format.ts`), written by a daily file sink
 * (`daily-file-sink.ts`) with the error log's rotation, retention and byte cap. The sink's own
 * notices are JSON lines too: `{"time":"…","notice":"12 access log lines dropped: …"}`.
 */
import { DEFAULT_LOG_MAX_BYTES } from '../config/index.js';
import { VerbatimCheck, writeAccessLine, type AccessRecord, type TextMasker } from './access-format.js';
import type { DailyFileKind, LineCounts } from './batch-planner.js';
import { DailyFileSink, type DailyFileOptions } from './daily-file-sink.js';
import { createIsoTimestamper } from './format.js';
import { escapeJsonLine } from './json-text.js';
import { accessLogStem } from './rotation.js';
import { zonedTimeOf } from './zoned-time.js';

export interface AccessLogOptions extends DailyFileOptions {
  /** `prod`: the files are `prod-access-<YYYY-MM-DD>.log`. */
  readonly appEnv: string;
  /** Masks the configured secrets in a client's text, and says what may be one (the service's masker). */
  readonly mask: TextMasker;
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

/** Requests gathered at most before their lines are written out at once, whatever the delay. */
const MAX_GATHERED = 1024;

/** Queued bytes past which lines are queued flat (see createLineWriter): a few gatherings' worth. */
const FLATTEN_ABOVE_BYTES = 1 << 20;

/** The access log's own gathering delay by default: the sink's (see DailyFileSinkOptions). */
const DEFAULT_GATHER_MS = 20;

/** Creates the access log's sink and applies retention once; never throws for an unwritable directory. */
export function createAccessLog(options: AccessLogOptions): AccessLog {
  // One zone file read and parsed for the lines' times and the sink's dates.
  const zoned = zonedTimeOf(options.zoned ?? options.timeZone);
  const stamp = createIsoTimestamper(zoned);
  const kind: DailyFileKind = {
    stem: accessLogStem(options.appEnv),
    what: 'access log',
    notice: (instant, message) => formatAccessNotice(stamp(instant), message),
  };
  // The access log gathers requests itself, so its sink writes what it is given at once.
  const sink = new DailyFileSink({ ...options, zoned, maxBytes: options.maxBytes ?? DEFAULT_LOG_MAX_BYTES, flushDelayMs: 0 }, kind);
  const gathering = gatherRequests(sink, options.flushDelayMs ?? DEFAULT_GATHER_MS, createLineWriter(sink, stamp, options.mask));
  return {
    record: gathering.record,
    flush: () => {
      gathering.writeOut();
      return sink.flush();
    },
    flushSync: () => {
      gathering.writeOut();
      sink.flushSync();
    },
    close: () => {
      gathering.close();
      return sink.close();
    },
    lineCounts: () => sink.lineCounts(),
  };
}

/** Requests whose lines are not made yet, each with the instant it was recorded at, which decides its file. */
interface Gathering {
  /** Gathers a request: the first starts the delay, the MAX_GATHERED-th writes them all at once. */
  readonly record: (entry: AccessRecord) => void;
  /** Writes the gathered requests' lines now. */
  readonly writeOut: () => void;
  /** Writes them now, and each later request's as it is recorded. */
  readonly close: () => void;
}

/** Gives a gathering's lines to the sink: `records[i]` was recorded at `instants[i]`. */
type LineWriter = (records: readonly AccessRecord[], instants: readonly number[]) => void;

/**
 * A request's line is made with the others gathered in the same delay, not while it is
 * answered: formatting them one after another in a loop, away from the HTTP work, cost 3
 * points less of the realistic mix's throughput than formatting each as its request ended
 * (bench:access-cost, both at once).
 */
function gatherRequests(sink: DailyFileSink, gatherMs: number, writeLines: LineWriter): Gathering {
  let gathered: AccessRecord[] = [];
  let instants: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const writeOut = () => {
    clearTimeout(timer);
    timer = undefined;
    const records = gathered;
    const at = instants;
    gathered = [];
    instants = [];
    writeLines(records, at);
  };
  return {
    record: (entry) => {
      gathered.push(entry);
      instants.push(sink.now());
      if (closed || gathered.length >= MAX_GATHERED) writeOut();
      else timer ??= setTimeout(writeOut, gatherMs);
    },
    writeOut,
    close: () => {
      closed = true;
      writeOut();
    },
  };
}

/** Makes each gathered request's line (masked, stamped in the log time zone) and appends it to the sink. */
function createLineWriter(sink: DailyFileSink, stamp: (instant: number) => string, mask: TextMasker): LineWriter {
  const verbatim = new VerbatimCheck(mask);
  return (records, instants) => {
    for (let i = 0; i < records.length; i++) {
      const line = writeAccessLine(records[i]!, stamp, mask, verbatim);
      // The line is built by additions, which V8 keeps as a tree of its pieces (and of the
      // request's texts) until the text is read: 40,000 typical lines (16.7 MB) held 55.7 MB of
      // heap as trees, 18.0 MB flat. The sink writes lines as soon as it has them, so a tree
      // lives a moment; once lines pile up (a slow disk), reading one character of each makes it
      // flat, and a full queue stays near its byte bound.
      if (sink.queuedBytes > FLATTEN_ABOVE_BYTES) line.text.charCodeAt(0);
      sink.append(instants[i]!, line.text, line.bytes);
    }
  };
}

/** The stream sink, for the lines logged before a file sink is set up (and for library callers). */
import { createTimestamper, formatLine, type Logger } from './format.js';

export interface StreamLoggerOptions {
  /** Ends each line logged for a request with its id, as the file sink does (off by default). */
  readonly requestIds?: boolean;
}

/** A logger that writes whole lines to a stream (stderr until a file sink is set up). */
export function createStreamLogger(
  stream: NodeJS.WritableStream,
  timeZone: string,
  clock: () => number = Date.now,
  options: StreamLoggerOptions = {},
): Logger {
  const stamp = createTimestamper(timeZone);
  const requestIds = options.requestIds === true;
  return {
    log(channel, level, message, requestId) {
      stream.write(formatLine(stamp(clock()), channel, level, message, requestIds ? requestId : undefined));
    },
    flush() {
      return new Promise((resolve) => stream.write('', () => resolve()));
    },
  };
}

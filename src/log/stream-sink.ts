/** The stream sink, for the lines logged before a file sink is set up (and for library callers). */
import { createTimestamper, formatLine, type Logger } from './format.js';

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

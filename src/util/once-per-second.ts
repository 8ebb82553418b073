/**
 * Formatting an instant at most once per second: timestamps of log lines and HTTP dates only
 * change once a second, and a flood asks for them thousands of times in between.
 */

/** Wraps `format` (given the start of the instant's second) in a one-entry cache. */
export function formatOncePerSecond(format: (secondStart: number) => string): (instant: number) => string {
  let second = Number.NaN;
  let text = '';
  return (instant) => {
    const s = Math.floor(instant / 1000);
    if (s !== second) {
      second = s;
      text = format(s * 1000);
    }
    return text;
  };
}

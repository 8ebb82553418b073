/**
 * At most one log line a second per reason: the first line of a burst goes out at once, the
 * rest are counted and summed up in one line when the second is over. A flood of bad requests
 * therefore costs a few lines, never one line per request.
 */

/** How long a reason stays quiet after a line about it. */
export const THROTTLE_WINDOW_MS = 1_000;

export interface ThrottledLog {
  /** Logs `line` now, or counts it if a line about `reason` went out less than a window ago. */
  note(reason: string, line: string): void;
  /** Writes the pending summaries now (before a stop). */
  flush(): void;
}

interface Window {
  /** Lines counted and not written since the window opened. */
  folded: number;
  /** The latest of them, which the summary repeats. */
  latest: string;
  timer: ReturnType<typeof setTimeout>;
}

/** `Bad request from 10.0.0.1: HPE_INVALID_METHOD (and 57 more in the last second)`. */
export function summaryLine(latest: string, folded: number): string {
  return folded > 1 ? `${latest} (and ${folded - 1} more in the last second)` : latest;
}

/** A throttle that writes through `write`; `windowMs` is injectable for tests. */
export function createThrottledLog(write: (line: string) => void, windowMs = THROTTLE_WINDOW_MS): ThrottledLog {
  const windows = new Map<string, Window>();

  const close = (reason: string) => {
    const window = windows.get(reason);
    if (!window) return;
    if (window.folded === 0) {
      windows.delete(reason);
      return;
    }
    write(summaryLine(window.latest, window.folded));
    // The summary is a line too: the next one waits another window.
    window.folded = 0;
    window.timer = startTimer(reason);
  };

  const startTimer = (reason: string) => {
    const timer = setTimeout(() => close(reason), windowMs);
    timer.unref();
    return timer;
  };

  return {
    note(reason, line) {
      const window = windows.get(reason);
      if (window) {
        window.folded++;
        window.latest = line;
        return;
      }
      write(line);
      windows.set(reason, { folded: 0, latest: line, timer: startTimer(reason) });
    },
    flush() {
      for (const [reason, window] of windows) {
        clearTimeout(window.timer);
        if (window.folded > 0) write(summaryLine(window.latest, window.folded));
      }
      windows.clear();
    },
  };
}

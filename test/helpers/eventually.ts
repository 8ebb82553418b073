/**
 * Waiting for a condition instead of sleeping a fixed time: a loaded machine only makes the wait
 * longer. The bound is there so a condition that never holds fails the test, naming it.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Generous: nothing here takes a second on an idle machine. */
const DEFAULT_LIMIT_MS = 10_000;

/** Resolves with `probe()`'s first value that `holds`, polled every few milliseconds; rejects after `limitMs`. */
export async function eventually<T>(
  what: string,
  probe: () => T | Promise<T>,
  holds: (value: T) => boolean = Boolean,
  limitMs = DEFAULT_LIMIT_MS,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`not within ${limitMs} ms: ${what} (last seen: ${JSON.stringify(value)?.slice(0, 300)})`);
    await sleep(5);
  }
}

/**
 * When to try to connect again: an exponential backoff with a cap and no jitter. One process
 * holds one connection, so there is no herd of clients to spread out, and a fixed schedule is one
 * a test (and an operator reading the log) can predict.
 */

export interface BackoffPolicy {
  /** The wait before the first retry. */
  readonly initialDelayMs: number;
  /** The longest wait: the delay doubles up to here and stays. */
  readonly maxDelayMs: number;
}

/**
 * 50 ms, 100 ms, 200 ms … 2 s: Redis restarting on the same machine is back within the first
 * few retries; one that is away for long is asked once every 2 s, not hammered.
 */
export const DEFAULT_BACKOFF: BackoffPolicy = Object.freeze({ initialDelayMs: 50, maxDelayMs: 2_000 });

/** The wait before retry number `attempt` (0 for the first retry after a failure). */
export function reconnectDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  // a bounded exponent: a long outage's attempt count never makes an Infinity
  const doublings = Math.min(Math.max(0, attempt), 31);
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** doublings);
}

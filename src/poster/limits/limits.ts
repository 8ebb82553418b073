/**
 * The poster limits as the API uses them, whoever keeps the counts: files on a shared volume
 * (`rate.ts`, `quota.ts`, one machine) or Redis (`redis-rate.ts`, `redis-store-count.ts`,
 * REDIS_URL, several machines). And the answer when the counts cannot be reached.
 */
import { Problem } from '../../core/index.js';

/** A poster file as the count knows it: its name in the posters directory and its size. */
export interface StoredPoster {
  readonly name: string;
  readonly bytes: number;
}

/** POSTER_RATE_LIMIT: counts one request of a subject, or throws TooManyRequests (429). */
export interface RateLimiter {
  take(subject: string): Promise<void>;
}

/** POSTER_MAX_BYTES: the bytes the posters directory holds, and room for one more poster. */
export interface StoreCount {
  /** Bytes held, as last known (`poster_store_bytes`). */
  readonly total: number;
  /** Refuses (507) when not even one more byte fits: no need to render a poster to know. */
  checkRoom(): Promise<void>;
  /** Counts a poster about to be written, or refuses (507) when it would take the store past its limit. */
  admit(poster: StoredPoster): Promise<Admission>;
}

/** A poster admitted: call `written` once this process has linked it into place, `release` in any case after. */
export interface Admission {
  written(): Promise<void>;
  release(): Promise<void>;
}

/** Seconds a client waits before asking again while the limits are away: the client's longest reconnection delay. */
export const LIMITS_RETRY_AFTER_SECONDS = 2;

/**
 * The limits' store (Redis) cannot be reached: a poster request that needs a limit is refused,
 * never let through uncounted. The outage itself is logged by its owner, at most once a second.
 */
export class LimitsUnavailable extends Problem {
  constructor() {
    super('limits_unavailable', 'The poster limits (POSTER_RATE_LIMIT, POSTER_MAX_BYTES) cannot be checked right now, so no poster is made; try again shortly.', {
      headers: { 'retry-after': String(LIMITS_RETRY_AFTER_SECONDS) },
      reportedElsewhere: true,
    });
  }
}

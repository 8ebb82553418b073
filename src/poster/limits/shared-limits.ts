/**
 * The poster limits kept in Redis (REDIS_URL): one client for the process, the rate windows and
 * the store's count through it, the readiness check that names Redis, and the outage lines.
 * Loaded only when REDIS_URL is set, so a service without it never loads the client.
 */
import type { Logger } from '../../log/index.js';
import { createRedisClient, type RedisEndpoint } from '../../redis/index.js';
import type { RateLimiter } from './limits.js';
import { createOutageGuard } from './redis-outage.js';
import { RedisRateLimiter } from './redis-rate.js';
import { RedisStoreCount } from './redis-store-count.js';

export interface SharedLimitsOptions {
  readonly endpoint: RedisEndpoint;
  /** POSTER_RATE_LIMIT; 0 counts nothing. */
  readonly rateLimit: number;
  /** `<PUBLIC_DIR>/posters`. */
  readonly postersDir: string;
  /** POSTER_MAX_BYTES. */
  readonly maxBytes: number;
  /** Where the outage lines go (the error log's `app` channel). */
  readonly logger: Pick<Logger, 'log'>;
  readonly clock: () => number;
}

export interface SharedLimits {
  readonly rate: RateLimiter | undefined;
  readonly store: RedisStoreCount;
  /** The readiness check `redis`: undefined while Redis answers a PING, else why not. */
  check(): Promise<string | undefined>;
  /** Requests refused because Redis failed. */
  refusals(): number;
  close(): Promise<void>;
}

export function createSharedLimits({ endpoint, rateLimit, postersDir, maxBytes, logger, clock }: SharedLimitsOptions): SharedLimits {
  const client = createRedisClient(endpoint);
  const guard = createOutageGuard({
    endpoint: client.endpoint,
    onStateChange: (listener) => client.onStateChange(listener),
    log: (level, line) => logger.log('app', level, line),
    clock,
  });
  const store = new RedisStoreCount({ client, guard, postersDir, limit: maxBytes });
  // Counted at start-up; if Redis is away now, the first poster request counts again (and is a 503 until then).
  store.countFiles().catch(() => {});
  return {
    rate: rateLimit > 0 ? new RedisRateLimiter({ client, guard, limit: rateLimit }) : undefined,
    store,
    async check() {
      try {
        await client.command(['PING']);
        return undefined;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    },
    refusals: () => guard.refusals,
    async close() {
      guard.stop();
      await client.close();
    },
  };
}

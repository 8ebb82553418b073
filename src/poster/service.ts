/**
 * The poster API's parts (POSTER_API=1): the public key tokens are verified with (JWT_PUBLIC_KEY
 * alone; in dev, the pair is generated when neither file exists), a bearer guard with its cache
 * of verified tokens, the render pool, the limits (local files, or Redis with REDIS_URL) and the
 * routes.
 *
 * The server imports this module only when the poster API is on, so a service without it never
 * loads the poster encoder or the JWT code. With it on, `ready` imports jose before the service
 * listens (a failed import would stay failed: see `loadJose`); the render workers wait for their
 * first use.
 */
import type { Config } from '../config/index.js';
import { DEFAULT_SERVICE_DOCUMENT } from '../store/index.js';
import type { ServiceRoute } from '../http/index.js';
import { createBearerGuard, loadJose, obtainPublicKey, VerifiedTokenCache } from '../jwt/index.js';
import type { Logger } from '../log/index.js';
import { join } from 'node:path';
import { posterApiRoute, posterSchemaRoute, POSTER_RATE_DIR, POSTERS_DIR } from './api.js';
import { openApiRoute } from './openapi.js';
import { type RateLimiter, type StoreCount, PosterUsage, PosterRateLimiter, loadSharedLimits } from './limits/index.js';
import { createRenderPool, type RenderPool, type RenderPoolOptions } from './pool.js';

export interface PosterServiceOptions {
  readonly config: Config;
  readonly clock: () => number;
  /** Where start-up notices go (a generated dev key pair). */
  readonly say: (line: string) => void;
  /** The error log: Redis' outages are reported there (REDIS_URL). */
  readonly logger: Pick<Logger, 'log'>;
  readonly renderPool?: RenderPoolOptions;
}

export interface PosterService {
  readonly routes: readonly ServiceRoute[];
  readonly pool: RenderPool;
  /** Bytes `<PUBLIC_DIR>/posters/` holds, as last counted (`poster_store_bytes`). */
  storeBytes(): number;
  /** Tokens found verified in the cache (`jwt_cache_hits_total`). */
  jwtCacheHits(): number;
  /** The readiness check of Redis (`redis`), with REDIS_URL. */
  readonly redisCheck: (() => Promise<string | undefined>) | undefined;
  /** Poster requests refused (503) because Redis could not be reached (`poster_limits_unavailable_total`). */
  limitsRefusals(): number;
  /** Imports jose, which protected requests need; the server awaits it before it listens. */
  ready(): Promise<void>;
  /** Stops the render workers and the Redis client. */
  close(): Promise<void>;
}

/** The limits as the API uses them, with the readiness check and the closing of what keeps them. */
interface PosterLimits {
  readonly rate: RateLimiter | undefined;
  readonly store: StoreCount;
  readonly check: (() => Promise<string | undefined>) | undefined;
  refusals(): number;
  close(): Promise<void>;
}

/** Where the limits are counted: in Redis with REDIS_URL (imported only then), else in local files. */
async function createLimits(config: Config, logger: Pick<Logger, 'log'>, clock: () => number): Promise<PosterLimits> {
  const postersDir = join(config.publicDir, POSTERS_DIR);
  if (config.redis !== undefined) {
    const { createSharedLimits } = await loadSharedLimits();
    const shared = createSharedLimits({ endpoint: config.redis, rateLimit: config.posterRateLimit, postersDir, maxBytes: config.posterMaxBytes, logger, clock });
    return { rate: shared.rate, store: shared.store, check: () => shared.check(), refusals: () => shared.refusals(), close: () => shared.close() };
  }
  const usage = new PosterUsage(postersDir, config.posterMaxBytes);
  // The walk runs at start-up; a failure here is retried, and answered, by the first request.
  usage.refresh().catch(() => {});
  const rate = config.posterRateLimit > 0
    ? new PosterRateLimiter({ dir: join(config.varDir, POSTER_RATE_DIR), limit: config.posterRateLimit, clock })
    : undefined;
  return { rate, store: usage, check: undefined, refusals: () => 0, close: async () => {} };
}

export async function createPosterService({ config, clock, say, logger, renderPool = {} }: PosterServiceOptions): Promise<PosterService> {
  const publicKey = obtainPublicKey(config, say);
  const realm = DEFAULT_SERVICE_DOCUMENT.name;
  const cache = config.jwt.cacheSize > 0 ? new VerifiedTokenCache(config.jwt.cacheSize) : undefined;
  const guard = createBearerGuard({
    publicKey,
    skewSeconds: config.jwt.clockSkew,
    ttlSeconds: config.jwt.tokenTtl,
    realm,
    clock,
    cache,
  });
  const limits = await createLimits(config, logger, clock);
  const pool = createRenderPool(renderPool);
  return {
    routes: [posterApiRoute({ config, guard, pool, store: limits.store, limiter: limits.rate, realm }), posterSchemaRoute(config), openApiRoute(config)],
    pool,
    storeBytes: () => limits.store.total,
    jwtCacheHits: () => cache?.hits ?? 0,
    redisCheck: limits.check,
    limitsRefusals: () => limits.refusals(),
    ready: () => loadJose().then(() => undefined),
    close: async () => void (await Promise.all([pool.close(), limits.close()])),
  };
}

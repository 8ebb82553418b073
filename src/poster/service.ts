/**
 * The poster API's parts (POSTER_API=1): the key pair (generated in dev when missing, required
 * elsewhere), a bearer guard with its cache of verified tokens, the render pool and the routes.
 *
 * The server imports this module only when the poster API is on, so a service without it never
 * loads the poster encoder or the JWT code. With it on, `ready` imports jose before the service
 * listens (a failed import would stay failed: see `loadJose`); the render workers wait for their
 * first use.
 */
import type { Config } from '../config.js';
import { DEFAULT_SERVICE_DOCUMENT } from '../entry-point.js';
import type { Handler } from '../http/handler.js';
import { createBearerGuard, loadJose, obtainKeyPair, VerifiedTokenCache } from '../jwt.js';
import type { Route } from '../router.js';
import { join } from 'node:path';
import { posterApiRoute, posterSchemaRoute, POSTERS_DIR } from './api.js';

import { PosterUsage } from './quota.js';
import { createRenderPool, type RenderPool, type RenderPoolOptions } from './pool.js';

export interface PosterServiceOptions {
  readonly config: Config;
  readonly clock: () => number;
  /** Where start-up notices go (a generated dev key pair). */
  readonly say: (line: string) => void;
  readonly renderPool?: RenderPoolOptions;
}

export interface PosterService {
  readonly routes: readonly Route<Handler>[];
  readonly pool: RenderPool;
  /** Bytes `<PUBLIC_DIR>/posters/` holds, as last counted (`poster_store_bytes`). */
  storeBytes(): number;
  /** Tokens found verified in the cache (`jwt_cache_hits_total`). */
  jwtCacheHits(): number;
  /** Imports jose, which protected requests need; the server awaits it before it listens. */
  ready(): Promise<void>;
}

export function createPosterService({ config, clock, say, renderPool = {} }: PosterServiceOptions): PosterService {
  const keys = obtainKeyPair(config, say);
  const realm = DEFAULT_SERVICE_DOCUMENT.name;
  const cache = config.jwt.cacheSize > 0 ? new VerifiedTokenCache(config.jwt.cacheSize) : undefined;
  const guard = createBearerGuard({
    publicKey: keys.publicKey,
    skewSeconds: config.jwt.clockSkew,
    ttlSeconds: config.jwt.tokenTtl,
    realm,
    clock,
    cache,
  });
  const pool = createRenderPool(renderPool);
  const usage = new PosterUsage(join(config.publicDir, POSTERS_DIR), config.posterMaxBytes);
  // The walk runs at start-up; a failure here is retried, and answered, by the first request.
  usage.refresh().catch(() => {});
  return {
    routes: [posterApiRoute({ config, guard, pool, usage, realm, clock }), posterSchemaRoute(config)],
    pool,
    storeBytes: () => usage.total,
    jwtCacheHits: () => cache?.hits ?? 0,
    ready: () => loadJose().then(() => undefined),
  };
}

/**
 * How many posters a subject may make: the rate limit (a window per subject) and the store's
 * quota (bytes under posters/), counted in local files or, with REDIS_URL, in Redis for every
 * instance. The Redis side is loaded with `loadSharedLimits`, only when REDIS_URL is set.
 */
export { type RateLimiter, type StoreCount } from './limits.js';
export { fileSize, PosterUsage } from './quota.js';
export { PosterRateLimiter } from './rate.js';

/** The limits shared through Redis (REDIS_URL), with the client they need. */
export function loadSharedLimits(): Promise<typeof import('./shared-limits.js')> {
  return import('./shared-limits.js');
}

/**
 * Verified tokens, kept so a client reusing its token costs a hash lookup instead of a P-521
 * verification.
 */
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { tokenValidUntil, type TokenTimeRules } from './tokens.js';

/** Most verified tokens one cache keeps; the oldest go first. */
export const MAX_VERIFIED_TOKENS = 10_000;

/**
 * Verified tokens, so a client reusing its token costs a hash lookup instead of a P-521
 * verification. Bounded; an entry holds only as long as verification would pass: until
 * min(exp, iat + ttl) + skew (`tokenValidUntil`).
 */
export class VerifiedTokenCache {
  readonly #max: number;
  readonly #entries = new Map<string, { claims: JWTPayload; validUntil: number }>();
  #hits = 0;

  constructor(max = MAX_VERIFIED_TOKENS) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Lookups that found a verified token (`jwt_cache_hits_total`). */
  get hits(): number {
    return this.#hits;
  }

  get(token: string, now: number): JWTPayload | undefined {
    const key = cacheKey(token);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (now >= entry.validUntil) {
      this.#entries.delete(key);
      return undefined;
    }
    this.#hits++;
    return entry.claims;
  }

  set(token: string, claims: JWTPayload, rules: TokenTimeRules): void {
    // Only verified claims come here, and verification requires both.
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return;
    const key = cacheKey(token);
    this.#entries.delete(key);
    this.#entries.set(key, { claims, validUntil: tokenValidUntil({ iat: claims.iat, exp: claims.exp }, rules) });
    // Oldest first in insertion order.
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

/** Keys are digests: the cache never holds whole tokens. */
function cacheKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

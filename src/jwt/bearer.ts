/**
 * The bearer guard of protected routes (RFC 6750): reads `Authorization: Bearer <token>`,
 * verifies the token (or finds it verified in the cache) and answers 401 with the challenge.
 */
import type { KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { Problem } from '../core/index.js';
import { failed, succeeded, type Result } from '../util/result.js';
import { InvalidToken, verifyToken } from './tokens.js';
import type { VerifiedTokenCache } from './verified-cache.js';

/** 401 of a protected route, with the RFC 6750 challenge. */
export class Unauthorized extends Problem {
  constructor(realm: string, detail: string, invalidToken: boolean) {
    const challenge = invalidToken
      ? `Bearer realm="${realm}", error="invalid_token", error_description="${detail.replace(/["\\]/g, '')}"`
      : `Bearer realm="${realm}"`;
    super('unauthorized', detail, { headers: { 'www-authenticate': challenge } });
  }
}

/**
 * The token of `Authorization: Bearer <token>` (scheme case-insensitive): undefined when the
 * header is absent or empty; a failure when it is not `Bearer <token>`.
 */
export function bearerToken(authorization: string | undefined): Result<string | undefined, 'malformed'> {
  if (authorization === undefined || authorization.trim() === '') return succeeded(undefined);
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  return match ? succeeded(match[1]!) : failed('malformed');
}

export interface BearerGuardOptions {
  readonly publicKey: KeyObject;
  readonly skewSeconds: number;
  /** JWT_TOKEN_TTL: the longest lifetime a token may have. */
  readonly ttlSeconds: number;
  readonly realm: string;
  readonly clock: () => number;
  readonly cache?: VerifiedTokenCache;
}

/** Returns the claims of a request's valid bearer token, or throws Unauthorized. */
export function createBearerGuard(options: BearerGuardOptions): (authorization: string | undefined) => Promise<JWTPayload> {
  const { publicKey, skewSeconds, ttlSeconds, realm, clock, cache } = options;
  return async (authorization) => {
    const read = bearerToken(authorization);
    if (!read.ok) throw new Unauthorized(realm, 'The Authorization header is not "Bearer <token>".', true);
    const token = read.value;
    if (token === undefined) throw new Unauthorized(realm, 'This route needs a bearer token.', false);
    const now = clock();
    const cached = cache?.get(token, now);
    if (cached) return cached;
    try {
      const claims = await verifyToken(token, publicKey, skewSeconds, now, ttlSeconds);
      cache?.set(token, claims, { skewSeconds, ttlSeconds });
      return claims;
    } catch (err) {
      if (err instanceof InvalidToken) throw new Unauthorized(realm, `The token is not valid: ${err.message}.`, true);
      throw err;
    }
  };
}

/**
 * Issuing and verifying ES512 tokens through jose, and the time rules a verified token must also
 * meet (JWT_CLOCK_SKEW, JWT_TOKEN_TTL).
 *
 * jose is imported where a token is first issued or verified (or by `loadJose`), so importing
 * this module never pays for it. The service imports it before it listens, when the poster API is
 * on (see `loadJose`).
 */
import type { KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';

export const JWT_ALGORITHM = 'ES512';

type Jose = typeof import('jose');

/**
 * jose. Node's module map keeps it once loaded, so later calls cost a lookup and no state of ours
 * remembers anything. Node keeps a failed import as well, for the life of the process (Node 20:
 * an EMFILE while reading one of jose's files fails every later import of it), so the service
 * calls this before it listens, where a failure stops the start rather than every protected
 * request until a restart.
 */
export function loadJose(): Promise<Jose> {
  return import('jose');
}
/** Longer tokens are refused before any cryptography runs. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/**
 * The longest username a token is issued for, in UTF-8 bytes, so that the service accepts every
 * token issued. The widest case: each byte a control character that JSON writes as `\u00XX`
 * (six bytes), twice (`sub` and `username`), a ten-digit `iat` and an eleven-digit `exp`; that
 * payload in base64url, with the header and the 132-byte signature, stays within
 * MAX_TOKEN_LENGTH (the test builds it; 494 bytes would not).
 */
export const MAX_USERNAME_BYTES = 480;

/** Why no token is issued for `username`, or undefined when one may be. */
export function usernameRefusal(username: string): string | undefined {
  const bytes = Buffer.byteLength(username);
  if (bytes <= MAX_USERNAME_BYTES) return undefined;
  return `the username is ${bytes} bytes long; at most ${MAX_USERNAME_BYTES} bytes (UTF-8) keep a token within the ${MAX_TOKEN_LENGTH} characters the service accepts`;
}

/**
 * A signed token for `username`: claims `sub` (RFC 7519's subject) and `username` (as the
 * original's bundle writes it), both the username, `iat`, `exp` = iat + ttl (seconds). A username
 * over MAX_USERNAME_BYTES is a RangeError: the service would refuse its token.
 */
export async function issueToken(privateKey: KeyObject, username: string, ttlSeconds: number, now: number): Promise<string> {
  const refusal = usernameRefusal(username);
  if (refusal !== undefined) throw new RangeError(refusal);
  const iat = Math.floor(now / 1000);
  const { SignJWT } = await loadJose();
  return new SignJWT({ username })
    .setProtectedHeader({ alg: JWT_ALGORITHM, typ: 'JWT' })
    .setSubject(username)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(privateKey);
}

/** Why a token was refused; the text goes into `error_description`. */
export class InvalidToken extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidToken';
  }
}

/** JWT_TOKEN_TTL's default (docs/settings.md, "Every setting"), for library callers that do not pass one. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

/** The time rules of verification, in seconds. */
export interface TokenTimeRules {
  /** Tolerance on `iat`, `nbf` and `exp` (JWT_CLOCK_SKEW). */
  readonly skewSeconds: number;
  /** The longest lifetime a token may have (JWT_TOKEN_TTL), enforced here, not only when issuing. */
  readonly ttlSeconds: number;
}

/**
 * Verifies a compact JWS: ES512 only, `exp` and `iat` required, `exp`/`nbf` with `skewSeconds`
 * of tolerance, `iat` not in the future beyond the skew, not older than `ttlSeconds` + skew, and
 * `exp - iat` at most `ttlSeconds`. Throws InvalidToken with the reason.
 */
export async function verifyToken(
  token: string, publicKey: KeyObject, skewSeconds: number, now: number, ttlSeconds = DEFAULT_TOKEN_TTL_SECONDS,
): Promise<JWTPayload> {
  if (token.length > MAX_TOKEN_LENGTH) throw new InvalidToken(`the token is longer than ${MAX_TOKEN_LENGTH} characters`);
  const { jwtVerify } = await loadJose();
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, publicKey, {
      algorithms: [JWT_ALGORITHM],
      clockTolerance: skewSeconds,
      currentDate: new Date(now),
      requiredClaims: ['exp', 'iat'],
    }));
  } catch (err) {
    throw new InvalidToken(describeJoseError(err));
  }
  const refusal = lifetimeRefusal(payload as { iat: number; exp: number }, { skewSeconds, ttlSeconds }, now);
  if (refusal) throw new InvalidToken(refusal);
  return payload;
}

/**
 * Why a token's `iat`/`exp` break the lifetime rules at `now` (milliseconds), or undefined. A
 * token minted with a far `exp` (stolen signing key, a buggy issuer) is refused: the TTL is a
 * property of the service, not of whoever signed the token.
 */
export function lifetimeRefusal(claims: { readonly iat: number; readonly exp: number }, rules: TokenTimeRules, now: number): string | undefined {
  const nowSeconds = now / 1000;
  if (claims.iat > nowSeconds + rules.skewSeconds) return 'the token was issued in the future ("iat")';
  if (nowSeconds - claims.iat > rules.ttlSeconds + rules.skewSeconds) {
    return `the token was issued more than ${rules.ttlSeconds} seconds ago (JWT_TOKEN_TTL)`;
  }
  if (claims.exp - claims.iat > rules.ttlSeconds) {
    return `the token's lifetime ("exp" - "iat") is longer than ${rules.ttlSeconds} seconds (JWT_TOKEN_TTL)`;
  }
  return undefined;
}

/** Until when (milliseconds) verified claims stay valid: min(exp, iat + ttl) + skew. */
export function tokenValidUntil(claims: { readonly iat: number; readonly exp: number }, rules: TokenTimeRules): number {
  return (Math.min(claims.exp, claims.iat + rules.ttlSeconds) + rules.skewSeconds) * 1000;
}

/**
 * Why jose refused a token, for `error_description`. jose's errors are told apart by their stable
 * `code` (its `JOSEError` subclasses each carry one), not `instanceof`: a class is one copy of
 * jose's, and a second copy in the tree (a dependency's own) makes other classes with the same codes.
 */
export function describeJoseError(err: unknown): string {
  const { code, claim, reason } = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; claim?: unknown; reason?: unknown };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (reason === 'missing') return `the token has no "${String(claim)}" claim`;
      if (claim === 'nbf') return 'the token is not valid yet ("nbf")';
      return `the "${String(claim)}" claim is not valid`;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `only ${JWT_ALGORITHM} tokens are accepted`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'the signature does not verify';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'the token is malformed';
    default:
      return 'the token cannot be verified';
  }
}

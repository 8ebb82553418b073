/**
 * ES512 JWTs: the passphrase-protected key pair, issuing and verifying tokens (through jose),
 * a cache of verified tokens, and the bearer guard of protected routes.
 *
 * Keys are node:crypto's alone; jose is imported on the first token issued or verified (or by
 * `loadJose`), so importing this module, or starting a service whose protected routes nobody
 * calls, never pays for it.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JWTPayload } from 'jose';
import { Problem } from './problem.js';
import { errorCode } from './util/errno.js';
import { failed, succeeded, type Result } from './util/result.js';

export const JWT_ALGORITHM = 'ES512';

type Jose = typeof import('jose');
let jose: Promise<Jose> | undefined;

/**
 * jose, imported once on first use. Call it ahead (after the service listens) so the first
 * protected request does not wait for the import; a failed import is retried by the next call.
 */
export function loadJose(): Promise<Jose> {
  jose ??= import('jose').catch((err: unknown) => {
    jose = undefined;
    throw err;
  });
  return jose;
}
/** Longer tokens are refused before any cryptography runs. */
export const MAX_TOKEN_LENGTH = 8 * 1024;

/** A key file or passphrase that cannot be used; the message names the file or setting only. */
export class JwtKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwtKeyError';
  }
}

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export interface KeyPaths {
  readonly secretKeyPath: string;
  readonly publicKeyPath: string;
}

/** A fresh P-521 pair as PEM: encrypted PKCS#8 (AES-256) and SPKI. */
export function generateKeyPairPem(passphrase: string): { privatePem: string; publicPem: string } {
  if (passphrase === '') throw new JwtKeyError('JWT_PASSPHRASE must not be empty to encrypt the private key');
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-521',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

/** Writes a new pair; refuses to replace existing files unless `overwrite`. */
export function writeKeyPair(paths: KeyPaths, passphrase: string, overwrite: boolean): void {
  for (const path of [paths.secretKeyPath, paths.publicKeyPath]) {
    if (!overwrite && existsSync(path)) throw new JwtKeyError(`${path} exists; use --overwrite to replace the key pair`);
  }
  const { privatePem, publicPem } = generateKeyPairPem(passphrase);
  mkdirSync(dirname(paths.secretKeyPath), { recursive: true });
  mkdirSync(dirname(paths.publicKeyPath), { recursive: true });
  writeFileSync(paths.secretKeyPath, privatePem, { mode: 0o600 });
  writeFileSync(paths.publicKeyPath, publicPem, { mode: 0o644 });
}

function readPem(path: string, setting: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new JwtKeyError(`${setting} ${path} cannot be read (${errorCode(err) ?? 'error'})`);
  }
}

function checkP521(key: KeyObject, setting: string, path: string): void {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'secp521r1') {
    throw new JwtKeyError(`${setting} ${path} is not a P-521 key, which ES512 needs`);
  }
}

/** The public half alone, checked (readable, PEM, P-521): all that verifying a token needs. */
export function loadPublicKey(publicKeyPath: string): KeyObject {
  const publicPem = readPem(publicKeyPath, 'JWT_PUBLIC_KEY');
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: publicPem, format: 'pem' });
  } catch {
    throw new JwtKeyError(`JWT_PUBLIC_KEY ${publicKeyPath} is not a public key in PEM`);
  }
  checkP521(publicKey, 'JWT_PUBLIC_KEY', publicKeyPath);
  return publicKey;
}

/** Loads and checks the pair: readable files, the right passphrase, P-521, matching halves. */
export function loadKeyPair(paths: KeyPaths, passphrase: string): KeyPair {
  const privatePem = readPem(paths.secretKeyPath, 'JWT_SECRET_KEY');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: privatePem, format: 'pem', passphrase });
  } catch {
    // Whatever the cause, never repeat the passphrase.
    throw new JwtKeyError(`JWT_SECRET_KEY ${paths.secretKeyPath} cannot be decrypted with JWT_PASSPHRASE (wrong passphrase or not an encrypted PKCS#8 key)`);
  }
  checkP521(privateKey, 'JWT_SECRET_KEY', paths.secretKeyPath);
  const publicKey = loadPublicKey(paths.publicKeyPath);
  const derived = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  if (!derived.equals(publicKey.export({ type: 'spki', format: 'der' }))) {
    throw new JwtKeyError(`JWT_PUBLIC_KEY ${paths.publicKeyPath} does not belong to JWT_SECRET_KEY ${paths.secretKeyPath}`);
  }
  return { privateKey, publicKey };
}

/** A signed token for `username`: claims `username`, `iat`, `exp` = iat + ttl (seconds). */
export async function issueToken(privateKey: KeyObject, username: string, ttlSeconds: number, now: number): Promise<string> {
  const iat = Math.floor(now / 1000);
  const { SignJWT } = await loadJose();
  return new SignJWT({ username })
    .setProtectedHeader({ alg: JWT_ALGORITHM, typ: 'JWT' })
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

/** JWT_TOKEN_TTL's default (SPEC 11), for library callers that do not pass one. */
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

/**
 * Verified tokens, so a client reusing its token costs a hash lookup instead of a P-521
 * verification. Bounded; an entry holds only as long as verification would pass: until
 * min(exp, iat + ttl) + skew (`tokenValidUntil`).
 */
export class VerifiedTokenCache {
  readonly #max: number;
  readonly #entries = new Map<string, { claims: JWTPayload; validUntil: number }>();

  constructor(max = 10_000) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(token: string, now: number): JWTPayload | undefined {
    const key = cacheKey(token);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (now >= entry.validUntil) {
      this.#entries.delete(key);
      return undefined;
    }
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

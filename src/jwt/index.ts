/**
 * ES512 JWTs, the door of `jwt/`: the passphrase-protected key pair (`jwt/keys.ts`), issuing and
 * verifying tokens through jose (`jwt/tokens.ts`), a cache of verified tokens
 * (`jwt/verified-cache.ts`), and the bearer guard of protected routes (`jwt/bearer.ts`).
 *
 * Importing this module does not load jose: tokens are issued and verified through `loadJose`.
 */
export {
  ensurePassphrase,
  generateKeyPairPem,
  JwtKeyError,
  loadKeyPair,
  loadPublicKey,
  obtainPublicKey,
  writeKeyPair,
  type KeyPair,
  type KeyPaths,
} from './keys.js';
export {
  DEFAULT_TOKEN_TTL_SECONDS,
  describeJoseError,
  InvalidToken,
  issueToken,
  JWT_ALGORITHM,
  lifetimeRefusal,
  loadJose,
  MAX_TOKEN_LENGTH,
  MAX_USERNAME_BYTES,
  tokenValidUntil,
  usernameRefusal,
  verifyToken,
  type TokenTimeRules,
} from './tokens.js';
export { MAX_VERIFIED_TOKENS, VerifiedTokenCache } from './verified-cache.js';
export { bearerToken, createBearerGuard, Unauthorized, type BearerGuardOptions } from './bearer.js';

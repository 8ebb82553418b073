/**
 * Settings: env files and the environment read into one frozen, validated `Config`, with the
 * parsers of the settings that have a syntax of their own (trusted proxies and hosts, CORS
 * origins, the Redis URL), the reading of the JWT key files (checked with the settings when the
 * poster API is on) and the masker that keeps the secret settings out of every answer
 * and log line.
 */
export { type Config, ConfigError, DEFAULT_LOG_MAX_BYTES, loadConfig, type Namespace, type Namespaces, parseConfig, SECRET_SETTINGS, type TlsSettings } from './config.js';
export { DEFAULT_REDIS_PORT, describeEndpoint, MAX_REDIS_DB, parseRedisUrl, type RedisEndpoint } from './redis-url.js';
export { createSecretMasker, mapEveryString, MASK } from './secrets.js';
export { readSettingNameWarnings, readSettingWarnings } from './setting-warnings.js';
export { type AddressRange, type TrustedProxies, parseAddress, parseRange, parseTrustedProxies, rangeContains } from './trusted-proxies.js';
export { type HostMatcher, backtrackingRisk, parseTrustedHosts } from './trusted-hosts.js';
export { type CorsOrigins, MAX_CORS_ORIGINS, parseCorsOrigins } from './cors-origins.js';
export { devGeneratesKeyPair, type JwtKeyPaths, MAX_JWT_KEY_BYTES, p521Problem, readJwtKeyFile, readJwtPublicKey } from './jwt-key-files.js';
export { isValidHost } from './trusted-hosts.js';

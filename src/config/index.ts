export { type Config, ConfigError, DEFAULT_LOG_MAX_BYTES, loadConfig, type Namespace, type Namespaces, parseConfig, SECRET_SETTINGS } from './config.js';
export { DEFAULT_REDIS_PORT, describeEndpoint, MAX_REDIS_DB, parseRedisUrl, type RedisEndpoint } from './redis-url.js';
export { createSecretMasker, mapEveryString, MASK } from './secrets.js';

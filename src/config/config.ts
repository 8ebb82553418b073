/**
 * Settings: `.env` files (env-files.ts) and the real environment, validated into one frozen
 * Config. A bad value throws a ConfigError whose message names the setting and never echoes a
 * secret.
 *
 * Each setting is one row of SETTINGS (setting-rows.ts says how a row is written and read): the
 * variable, the Config field it fills, its parser, its default, its bounds, whether it is a
 * credential. The few fields built from several settings are named functions after the table.
 */
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import type { Config, Secrets, TlsSettings } from './config-types.js';
import { readTlsCredentials } from '../tls/index.js';
import { parseCorsOrigins } from './cors-origins.js';
import { devGeneratesKeyPair, readJwtPublicKey } from './jwt-key-files.js';
import { type Env, readEnvFiles } from './env-files.js';
import {
  DEFAULT_LOG_TIMEZONE, parseAppEnv, parseBaseUrl, parseCacheControl, parseFlag, parseInteger, parseListenHost,
  parseNamespace, parsePath, parseRedisSetting, parseTimeZone, parseWorkers, withSettingName,
} from './setting-parsers.js';
import { type Context, dependent, derived, type Field, parsed, read, readSettings } from './setting-rows.js';
import { parseTrustedHosts } from './trusted-hosts.js';
import { parseTrustedProxies } from './trusted-proxies.js';

export { ConfigError, ConfigErrors } from './config-error.js';
export type { Config, Namespaces, Secrets, TlsSettings } from './config-types.js';
export { readEnvFiles } from './env-files.js';
export { type AppEnv, MAX_SECRET_LENGTH, MIN_SECRET_LENGTH, type Namespace, parseCacheControl, parseNamespace } from './setting-parsers.js';

export const DEFAULT_NOT_FOUND_CACHE_CONTROL = 'immutable, max-age=31536000, public';
export const DEFAULT_LOG_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_POSTER_MAX_BYTES = 1024 * 1024 * 1024;
/** Profiles kept in memory at most, whatever PROFILER_MAX says (docs/http.md, "Limits"). */
export const PROFILER_MAX_LIMIT = 1000;
/** Worker processes at most, `WORKERS=auto` on a larger machine included. */
export const MAX_WORKERS = 256;

/**
 * The settings, one row each, in the order they are checked: the one-line report of bad settings
 * names them in this order.
 */
const SETTINGS = [
  derived('projectDir', ({ dir }) => resolve(dir)),
  read('APP_ENV').into('appEnv', { parse: parseAppEnv, default: 'dev' }),
  read('APP_ID').asSecret(),
  read('APP_KEY').asSecret(),
  read('ACCESS_TOKEN').asSecret(),
  read('APP_SECRET').asSecret(),
  read('JWT_PASSPHRASE').asSecret(),
  read('BROKER_PASSWORD').asSecret(),
  read('TLS_KEY_PASSPHRASE').asSecret(),
  read('APP_DEBUG').into('debug', { parse: parseFlag, default: dependent(({ earlier }) => earlier.appEnv === 'dev') }),
  read('HOST').into('host', { parse: parseListenHost, default: '127.0.0.1' }),
  read('PORT').into('port', { parse: parseInteger, default: 8000, bounds: [0, 65535] }),
  read('BASE_URL').into('baseUrl', { parse: parseBaseUrl, default: undefined }),
  read('DOC_BASE').into('namespaces.doc', { parse: parseNamespace, default: parsed('/doc/') }),
  read('PROBLEM_BASE').into('namespaces.problem', { parse: parseNamespace, default: parsed('/problem/') }),
  read('SCHEMA_BASE').into('namespaces.schema', { parse: parseNamespace, default: parsed('/schema/') }),
  read('SERVICE_BASE').into('namespaces.service', { parse: parseNamespace, default: parsed('/api/') }),
  read('STATIC_BASE').into('namespaces.static', { parse: parseNamespace, default: parsed('/static/') }),
  read('ADMIN_BASE').into('namespaces.admin', { parse: parseNamespace, default: parsed('/admin/') }),
  derived('brokerUrl', deriveBrokerUrl),
  read('TRUSTED_PROXIES').into('trustedProxies', { parse: withSettingName(parseTrustedProxies), default: parsed('') }),
  read('TRUSTED_HOSTS').into('trustedHosts', { parse: withSettingName(parseTrustedHosts), default: undefined }),
  derived('trustedAsWritten', deriveTrustedAsWritten),
  read('VAR_DIR').into('varDir', { parse: parsePath, default: parsed('var') }),
  read('LOG_DIR').into('logDir', { parse: parsePath, default: dependent(({ earlier }) => join(earlier.varDir, 'log')) }),
  read('LOG_TIMEZONE').into('logTimeZone', { parse: parseTimeZone, default: DEFAULT_LOG_TIMEZONE }),
  read('LOG_MAX_FILES').into('logMaxFiles', { parse: parseInteger, default: 10, bounds: [1, 10_000] }),
  read('LOG_MAX_BYTES').into('logMaxBytes', { parse: parseInteger, default: DEFAULT_LOG_MAX_BYTES, bounds: [64 * 1024, 2 ** 50] }),
  read('NOT_FOUND_CACHE_CONTROL').into('notFoundCacheControl', { parse: parseCacheControl, default: DEFAULT_NOT_FOUND_CACHE_CONTROL }),
  read('PUBLIC_DIR').into('publicDir', { parse: parsePath, default: parsed('public') }),
  read('POSTER_API').into('posterApi', { parse: parseFlag, default: false }),
  read('POSTER_MAX_BYTES').into('posterMaxBytes', { parse: parseInteger, default: DEFAULT_POSTER_MAX_BYTES, bounds: [0, 2 ** 50] }),
  read('POSTER_RATE_LIMIT').into('posterRateLimit', { parse: parseInteger, default: 60, bounds: [0, 1_000_000] }),
  read('REDIS_URL').into('redis', { parse: parseRedisSetting, default: undefined }),
  read('CORS_ORIGINS').into('corsOrigins', { parse: withSettingName(parseCorsOrigins), default: parsed('') }),
  read('MAX_CONNECTIONS').into('maxConnections', { parse: parseInteger, default: 10_000, bounds: [1, 1_000_000] }),
  read('JWT_SECRET_KEY').into('jwt.secretKeyPath', { parse: parsePath, default: parsed('config/jwt/private.pem') }),
  read('JWT_PUBLIC_KEY').into('jwt.publicKeyPath', { parse: parsePath, default: parsed('config/jwt/public.pem') }),
  derived('jwt.publicKeyPath', checkJwtPublicKey),
  read('JWT_TOKEN_TTL').into('jwt.tokenTtl', { parse: parseInteger, default: 3600, bounds: [1, 31_536_000] }),
  read('JWT_CLOCK_SKEW').into('jwt.clockSkew', { parse: parseInteger, default: 10, bounds: [0, 3600] }),
  read('JWT_CACHE_SIZE').into('jwt.cacheSize', { parse: parseInteger, default: 10_000, bounds: [0, 1_000_000] }),
  read('PROFILER_MAX').into('profilerMax', { parse: parseInteger, default: 200, bounds: [1, PROFILER_MAX_LIMIT] }),
  read('WORKERS').into('workers', { parse: parseWorkers, default: 1, bounds: [1, MAX_WORKERS] }),
  read('ACCESS_LOG').into('accessLog', { parse: parseFlag, default: true }),
  read('LOG_REQUEST_IDS').into('logRequestIds', { parse: parseFlag, default: false }),
  derived('admin', deriveAdmin),
  read('DRAIN_SECONDS').into('drainSeconds', { parse: parseInteger, default: 0, bounds: [0, 300] }),
  derived('tls', deriveTls),
] as const;

/** Compiles only when no field is `Missing`: a Config field without a row is a type error naming it. */
type NoFieldWithoutARow<Missing extends never> = Missing;
type EveryFieldHasARow = NoFieldWithoutARow<Exclude<Field, (typeof SETTINGS)[number]['field']>>;

/** The settings whose values are never shown: in errors, logs, responses or the profiler. */
export const SECRET_SETTINGS: readonly (keyof Secrets)[] = Object.freeze(SETTINGS.flatMap((row) => ('secret' in row ? [row.name] : [])));

/** Reads the env files of `dir` (default: the working directory) and validates them. */
export function loadConfig(options: { dir?: string; env?: Env } = {}): Config {
  const dir = options.dir ?? process.cwd();
  return parseConfig(readEnvFiles(dir, options.env ?? process.env), dir, availableParallelism());
}

/**
 * Validates merged variables into a frozen Config; relative paths resolve against `dir`;
 * `cores` (the processors this process may run on) is what `WORKERS=auto` means.
 */
export function parseConfig(vars: Env, dir: string, cores: number = availableParallelism()): Config {
  return deepFreeze(readSettings(SETTINGS, vars, { dir, cores }));
}

/** BROKER_HOST, BROKER_PORT, BROKER_USER, BROKER_VHOST and BROKER_PASSWORD as one URL. */
function deriveBrokerUrl(context: Context): string {
  const host = context.read('BROKER_HOST') ?? 'localhost';
  if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/.test(host)) {
    throw new ConfigError('BROKER_HOST', `${JSON.stringify(host)} is not a host name or address`);
  }
  const portText = context.read('BROKER_PORT');
  const port = portText === undefined ? 5672 : parseInteger('BROKER_PORT', portText, { bounds: [1, 65535] });
  const user = context.read('BROKER_USER') ?? 'guest';
  const vhost = context.read('BROKER_VHOST') ?? '/';
  const password = context.earlier['secrets.BROKER_PASSWORD'];
  const credentials = `${encodeURIComponent(user)}${password === '' ? '' : `:${encodeURIComponent(password)}`}`;
  return `amqp://${credentials}@${host}:${port}/${encodeURIComponent(vhost)}`;
}

/** TRUSTED_PROXIES and TRUSTED_HOSTS as written, for the dev profiler's config panel. */
function deriveTrustedAsWritten(context: Context): Config['trustedAsWritten'] {
  return { proxies: context.read('TRUSTED_PROXIES') ?? '', hosts: context.read('TRUSTED_HOSTS') ?? '' };
}

/**
 * ADMIN_HOST and ADMIN_PORT, checked only when ADMIN_PORT is set: nothing listens otherwise. Both
 * are read first all the same, so that an environment where nothing is set has every setting's
 * name asked for (setting-names.ts learns them so). A port of the service's own, on an address
 * it listens on, is refused here rather than found in use as the listeners start.
 */
function deriveAdmin(context: Context): Config['admin'] {
  const portText = context.read('ADMIN_PORT');
  const hostText = context.read('ADMIN_HOST');
  if (portText === undefined) return undefined;
  const host = context.check(() => parseListenHost('ADMIN_HOST', hostText ?? '127.0.0.1'));
  const port = context.check(() => parseInteger('ADMIN_PORT', portText, { bounds: [0, 65535] }));
  const service = context.earlier;
  // 0.0.0.0 and :: listen on every address; host names are left to the listen itself.
  const everyAddress = (address: string) => address === '0.0.0.0' || address === '::';
  // A field whose setting was bad is undefined (that config is thrown away).
  const clash = port !== 0 && port === service.port && host !== undefined && service.host !== undefined
    && (host === service.host || everyAddress(host) || everyAddress(service.host));
  if (clash) {
    throw new ConfigError('ADMIN_PORT', `is PORT (${port}), on an address HOST listens on too: the operator's listener needs a port of its own`);
  }
  return { host, port };
}

/**
 * JWT_PUBLIC_KEY as the row above read it, and with POSTER_API=1 the file it names checked now
 * (a regular file of at most MAX_JWT_KEY_BYTES, a P-521 public key in PEM), so that a problem is
 * named in the one line of bad settings: the service verifies tokens with that key alone. Not in
 * dev when neither key file exists: the service generates the pair as it starts.
 */
function checkJwtPublicKey(context: Context): string {
  const { posterApi, appEnv } = context.earlier;
  const paths = { secretKeyPath: context.earlier['jwt.secretKeyPath'], publicKeyPath: context.earlier['jwt.publicKeyPath'] };
  if (!posterApi || devGeneratesKeyPair(appEnv, paths)) return paths.publicKeyPath;
  const read = readJwtPublicKey(paths.publicKeyPath);
  if (!read.ok) throw new ConfigError('JWT_PUBLIC_KEY', read.problem);
  return paths.publicKeyPath;
}

/** A year, in seconds: how long browsers are told to use HTTPS only, unless HSTS_MAX_AGE says otherwise. */
export const DEFAULT_HSTS_MAX_AGE = 31_536_000;

/**
 * TLS_CERT and TLS_KEY (both or neither), HTTP2, HSTS_MAX_AGE and REDIRECT_PORT. The pair is read
 * and checked now, so that a missing file, a key that does not open or does not match, or an
 * expired certificate is named in the one line of bad settings.
 */
function deriveTls(context: Context): TlsSettings | undefined {
  const cert = context.read('TLS_CERT');
  const key = context.read('TLS_KEY');
  const http2 = context.check(() => parseFlag('HTTP2', context.read('HTTP2') ?? '1'));
  const hstsMaxAge = context.check(() => parseInteger('HSTS_MAX_AGE', context.read('HSTS_MAX_AGE') ?? String(DEFAULT_HSTS_MAX_AGE), { bounds: [0, 2 ** 31 - 1] }));
  const redirect = context.read('REDIRECT_PORT');
  const redirectPort = redirect === undefined ? undefined : context.check(() => parseInteger('REDIRECT_PORT', redirect, { bounds: [0, 65535] }));
  if (cert === undefined && key === undefined) {
    if (redirect !== undefined) throw new ConfigError('REDIRECT_PORT', 'redirects to HTTPS, which needs TLS_CERT and TLS_KEY');
    return undefined;
  }
  if (cert === undefined) throw new ConfigError('TLS_CERT', 'is not set, and TLS_KEY is: HTTPS needs both');
  if (key === undefined) throw new ConfigError('TLS_KEY', 'is not set, and TLS_CERT is: HTTPS needs both');
  const files = { certPath: resolve(context.dir, cert), keyPath: resolve(context.dir, key), passphrase: context.earlier['secrets.TLS_KEY_PASSPHRASE'] ?? '' };
  const read = readTlsCredentials(files, Date.now());
  if (!read.ok) {
    // A problem's message names its setting first; the settings line names it already.
    for (const { setting, message } of read.problems) context.check(() => { throw new ConfigError(setting, message.startsWith(`${setting} `) ? message.slice(setting.length + 1) : message); });
  }
  if (redirectPort !== undefined && redirectPort !== 0 && redirectPort === context.earlier.port) {
    throw new ConfigError('REDIRECT_PORT', `is PORT (${redirectPort}): the redirect needs a port of its own`);
  }
  return { certPath: files.certPath, keyPath: files.keyPath, http2, hstsMaxAge, redirectPort };
}

function deepFreeze<T>(value: T): T {
  // Typed arrays (address bytes) cannot be frozen; they are never handed out for writing.
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

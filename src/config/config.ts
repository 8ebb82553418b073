/**
 * Settings: `.env` files and the real environment, validated into one frozen Config.
 *
 * Files load like Symfony's Dotenv: `.env`, `.env.local` (skipped when APP_ENV=test),
 * `.env.<APP_ENV>`, `.env.<APP_ENV>.local`; later files win, real environment variables win
 * over every file. A bad value throws a ConfigError whose message names the setting and never
 * echoes a secret.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parseCorsOrigins, type CorsOrigins } from './cors-origins.js';
import { parseTrustedHosts, type HostMatcher } from './trusted-hosts.js';
import { parseTrustedProxies, type TrustedProxies } from './trusted-proxies.js';
import { errorCode } from '../util/errno.js';
import { parseRedisUrl, type RedisEndpoint } from './redis-url.js';

export type AppEnv = 'dev' | 'prod' | 'test';

/** A namespace: a path prefix ending in `/`, optionally on its own origin. */
export interface Namespace {
  /** `https://docs.example.com` when the setting was an absolute URL, else undefined. */
  readonly origin: string | undefined;
  /** Always starts and ends with `/`. */
  readonly path: string;
}

export interface Namespaces {
  readonly doc: Namespace;
  readonly problem: Namespace;
  readonly schema: Namespace;
  readonly service: Namespace;
  readonly static: Namespace;
  readonly admin: Namespace;
}

export interface Secrets {
  readonly APP_ID: string;
  readonly APP_KEY: string;
  readonly ACCESS_TOKEN: string;
  readonly APP_SECRET: string;
  readonly JWT_PASSPHRASE: string;
  readonly BROKER_PASSWORD: string;
}

export interface Config {
  /** The directory settings were read from; relative paths resolve against it. */
  readonly projectDir: string;
  readonly appEnv: AppEnv;
  readonly debug: boolean;
  readonly host: string;
  readonly port: number;
  /** `https://api.example.com` (no trailing slash), or undefined to derive it per request. */
  readonly baseUrl: string | undefined;
  readonly namespaces: Namespaces;
  readonly secrets: Secrets;
  /** `amqp://user:password@host:port/vhost`; nothing connects to it yet. */
  readonly brokerUrl: string;
  readonly trustedProxies: TrustedProxies;
  readonly trustedHosts: HostMatcher | undefined;
  /** TRUSTED_PROXIES and TRUSTED_HOSTS as written, for the dev profiler's config panel. */
  readonly trustedAsWritten: { readonly proxies: string; readonly hosts: string };
  readonly varDir: string;
  readonly logDir: string;
  readonly logTimeZone: string;
  readonly logMaxFiles: number;
  /** Bytes one day's log file may reach; later lines that day are counted, not written. */
  readonly logMaxBytes: number;
  readonly notFoundCacheControl: string;
  readonly publicDir: string;
  readonly posterApi: boolean;
  /** Total bytes `<PUBLIC_DIR>/posters/` may hold; a new poster past it is a 507. */
  readonly posterMaxBytes: number;
  /** New posters a token subject may ask for per minute; 0 turns the limit off. */
  readonly posterRateLimit: number;
  /**
   * REDIS_URL: where the poster limits live when several instances share them (the rate windows
   * and the store's byte count); undefined keeps them in local files.
   */
  readonly redis: RedisEndpoint | undefined;
  /** CORS_ORIGINS: the origins whose browser apps may call the service API (off by default). */
  readonly corsOrigins: CorsOrigins;
  /** Open connections at most; beyond it new ones are closed at once. */
  readonly maxConnections: number;
  readonly jwt: {
    readonly secretKeyPath: string;
    readonly publicKeyPath: string;
    readonly tokenTtl: number;
    readonly clockSkew: number;
    /** Verified tokens kept to skip repeated verification; 0 turns the cache off. */
    readonly cacheSize: number;
  };
  readonly profilerMax: number;
  /** Processes serving requests; more than one runs a `node:cluster` primary (`WORKERS`). */
  readonly workers: number;
  /** ACCESS_LOG: one JSON line per answered request in `<env>-access-<date>.log` (on by default). */
  readonly accessLog: boolean;
  /**
   * ADMIN_PORT and ADMIN_HOST: the operator's listener (`/healthz`, `/readyz`, `/metrics`);
   * undefined when ADMIN_PORT is unset, so nothing listens.
   */
  readonly admin: { readonly host: string; readonly port: number } | undefined;
  /**
   * DRAIN_SECONDS: how long a stopping service keeps serving (every answer closing its
   * connection) while `/readyz` says 503, so a balancer's health check takes it out of rotation
   * before it stops listening. 0 (default): it stops listening at once.
   */
  readonly drainSeconds: number;
}

/** The settings whose values are never shown: in errors, logs, responses or the profiler. */
export const SECRET_SETTINGS = [
  'APP_ID',
  'APP_KEY',
  'ACCESS_TOKEN',
  'APP_SECRET',
  'JWT_PASSPHRASE',
  'BROKER_PASSWORD',
] as const satisfies readonly (keyof Secrets)[];

export const DEFAULT_NOT_FOUND_CACHE_CONTROL = 'immutable, max-age=31536000, public';
export const DEFAULT_LOG_MAX_BYTES = 100 * 1024 * 1024;
export const DEFAULT_POSTER_MAX_BYTES = 1024 * 1024 * 1024;
/** Profiles kept in memory at most, whatever PROFILER_MAX says (README, "Dev profiler"). */
export const PROFILER_MAX_LIMIT = 1000;
/** Worker processes at most, `WORKERS=auto` on a larger machine included. */
export const MAX_WORKERS = 256;
/**
 * A credential shorter than this could not be masked (masking words that short would garble
 * ordinary text), so it would reach log lines as sent: refused when set (README, "Settings").
 */
export const MIN_SECRET_LENGTH = 4;
/** Every text written out is scanned for each credential: a bound on what one scan costs. */
export const MAX_SECRET_LENGTH = 4096;
/** The largest delta-seconds a cache can be sure to hold (RFC 9111 1.2.2). */
const MAX_DELTA_SECONDS = 2 ** 31 - 1;

/** A setting with an unusable value; the message is one line fit for a start-up failure. */
export class ConfigError extends Error {
  readonly setting: string;
  constructor(setting: string, problem: string) {
    super(`Invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

/** Several unusable settings at once, named in one line (values never shown). */
export class ConfigErrors extends ConfigError {
  readonly settings: readonly string[];
  readonly errors: readonly ConfigError[];
  constructor(errors: readonly ConfigError[]) {
    super(errors.map((e) => e.setting).join(', '), '');
    this.message = `Invalid settings (${errors.length}): ${errors.map((e) => e.message.replace(/^Invalid setting /, '')).join('; ')}`;
    this.name = 'ConfigErrors';
    this.settings = errors.map((e) => e.setting);
    this.errors = errors;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads the env files in `dir` under the real environment `env` and returns the merged
 * variables (real environment last, so it wins).
 */
export function readEnvFiles(dir: string, env: Env): Record<string, string | undefined> {
  const fromFile = (name: string): Record<string, string> => {
    const path = join(dir, name);
    if (!existsSync(path)) return {};
    try {
      return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
    } catch (err) {
      throw new ConfigError(name, `cannot be read (${errorCode(err) ?? 'error'})`);
    }
  };
  const base = { ...fromFile('.env') };
  const appEnvSoFar = env.APP_ENV ?? base.APP_ENV ?? 'dev';
  const local = appEnvSoFar === 'test' ? {} : fromFile('.env.local');
  const appEnv = env.APP_ENV ?? local.APP_ENV ?? base.APP_ENV ?? 'dev';
  return {
    ...base,
    ...local,
    ...fromFile(`.env.${appEnv}`),
    ...fromFile(`.env.${appEnv}.local`),
    ...env,
  };
}

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
  const read = (name: string): string | undefined => {
    const value = vars[name];
    return value === undefined || value === '' ? undefined : value;
  };
  // Every bad setting is reported, not only the first: one start-up, one line, all of them.
  const problems: ConfigError[] = [];
  function check<T>(parse: () => T, fallback?: T): T {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err);
      // Never returned: a config with problems is thrown away below.
      return fallback as T;
    }
  }
  const appEnv = check(() => parseAppEnv(read('APP_ENV')), 'dev');
  const varDir = resolve(dir, read('VAR_DIR') ?? 'var');
  const secrets = parseSecrets(read, problems);
  const config: Config = {
    projectDir: resolve(dir),
    appEnv,
    debug: check(() => parseFlag('APP_DEBUG', read('APP_DEBUG'), appEnv === 'dev')),
    host: check(() => parseListenHost('HOST', read('HOST') ?? '127.0.0.1')),
    port: check(() => parseInteger('PORT', read('PORT'), 8000, 0, 65535)),
    baseUrl: check(() => parseBaseUrl(read('BASE_URL'))),
    namespaces: {
      doc: check(() => parseNamespace('DOC_BASE', read('DOC_BASE') ?? '/doc/')),
      problem: check(() => parseNamespace('PROBLEM_BASE', read('PROBLEM_BASE') ?? '/problem/')),
      schema: check(() => parseNamespace('SCHEMA_BASE', read('SCHEMA_BASE') ?? '/schema/')),
      service: check(() => parseNamespace('SERVICE_BASE', read('SERVICE_BASE') ?? '/api/')),
      static: check(() => parseNamespace('STATIC_BASE', read('STATIC_BASE') ?? '/static/')),
      admin: check(() => parseNamespace('ADMIN_BASE', read('ADMIN_BASE') ?? '/admin/')),
    },
    secrets,
    brokerUrl: check(() => buildBrokerUrl(read, secrets.BROKER_PASSWORD)),
    trustedProxies: check(() => wrap('TRUSTED_PROXIES', () => parseTrustedProxies(read('TRUSTED_PROXIES') ?? ''))),
    trustedHosts: check(() => wrap('TRUSTED_HOSTS', () => parseTrustedHosts(read('TRUSTED_HOSTS') ?? ''))),
    trustedAsWritten: { proxies: read('TRUSTED_PROXIES') ?? '', hosts: read('TRUSTED_HOSTS') ?? '' },
    varDir,
    logDir: resolve(dir, read('LOG_DIR') ?? join(varDir, 'log')),
    logTimeZone: check(() => parseTimeZone('LOG_TIMEZONE', read('LOG_TIMEZONE') ?? DEFAULT_LOG_TIMEZONE)),
    logMaxFiles: check(() => parseInteger('LOG_MAX_FILES', read('LOG_MAX_FILES'), 10, 1, 10_000)),
    logMaxBytes: check(() => parseInteger('LOG_MAX_BYTES', read('LOG_MAX_BYTES'), DEFAULT_LOG_MAX_BYTES, 64 * 1024, 2 ** 50)),
    notFoundCacheControl: check(() => parseCacheControl('NOT_FOUND_CACHE_CONTROL', read('NOT_FOUND_CACHE_CONTROL') ?? DEFAULT_NOT_FOUND_CACHE_CONTROL)),
    publicDir: resolve(dir, read('PUBLIC_DIR') ?? 'public'),
    posterApi: check(() => parseFlag('POSTER_API', read('POSTER_API'), false)),
    posterMaxBytes: check(() => parseInteger('POSTER_MAX_BYTES', read('POSTER_MAX_BYTES'), DEFAULT_POSTER_MAX_BYTES, 0, 2 ** 50)),
    posterRateLimit: check(() => parseInteger('POSTER_RATE_LIMIT', read('POSTER_RATE_LIMIT'), 60, 0, 1_000_000)),
    redis: check(() => parseRedisSetting(read('REDIS_URL'))),
    corsOrigins: check(() => wrap('CORS_ORIGINS', () => parseCorsOrigins(read('CORS_ORIGINS')))),
    maxConnections: check(() => parseInteger('MAX_CONNECTIONS', read('MAX_CONNECTIONS'), 10_000, 1, 1_000_000)),
    jwt: {
      secretKeyPath: resolve(dir, read('JWT_SECRET_KEY') ?? 'config/jwt/private.pem'),
      publicKeyPath: resolve(dir, read('JWT_PUBLIC_KEY') ?? 'config/jwt/public.pem'),
      tokenTtl: check(() => parseInteger('JWT_TOKEN_TTL', read('JWT_TOKEN_TTL'), 3600, 1, 31_536_000)),
      clockSkew: check(() => parseInteger('JWT_CLOCK_SKEW', read('JWT_CLOCK_SKEW'), 10, 0, 3600)),
      cacheSize: check(() => parseInteger('JWT_CACHE_SIZE', read('JWT_CACHE_SIZE'), 10_000, 0, 1_000_000)),
    },
    profilerMax: check(() => parseInteger('PROFILER_MAX', read('PROFILER_MAX'), 200, 1, PROFILER_MAX_LIMIT)),
    workers: check(() => parseWorkers(read('WORKERS'), cores)),
    accessLog: check(() => parseFlag('ACCESS_LOG', read('ACCESS_LOG'), true)),
    admin: read('ADMIN_PORT') === undefined ? undefined : {
      host: check(() => parseListenHost('ADMIN_HOST', read('ADMIN_HOST') ?? '127.0.0.1')),
      port: check(() => parseInteger('ADMIN_PORT', read('ADMIN_PORT'), 0, 0, 65535)),
    },
    drainSeconds: check(() => parseInteger('DRAIN_SECONDS', read('DRAIN_SECONDS'), 0, 0, 300)),
  };
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) throw new ConfigErrors(problems);
  return deepFreeze(config);
}

/** REDIS_URL, unset for none; the parser's message names the setting already and never the password. */
function parseRedisSetting(value: string | undefined): RedisEndpoint | undefined {
  if (value === undefined) return undefined;
  try {
    return parseRedisUrl(value);
  } catch (err) {
    throw new ConfigError('REDIS_URL', (err as Error).message.replace(/^REDIS_URL: /, ''));
  }
}

function wrap<T>(setting: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new ConfigError(setting, (err as Error).message);
  }
}

function parseAppEnv(value: string | undefined): AppEnv {
  if (value === undefined) return 'dev';
  if (value === 'dev' || value === 'prod' || value === 'test') return value;
  throw new ConfigError('APP_ENV', `${JSON.stringify(value)} is not one of dev, prod, test`);
}

function parseFlag(setting: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === '1') return true;
  if (value === '0') return false;
  throw new ConfigError(setting, `${JSON.stringify(value)} is not 0 or 1`);
}

function parseInteger(setting: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(setting, `${JSON.stringify(value)} is not a whole number`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(setting, `${value} is out of range (${min}-${max})`);
  return n;
}

/**
 * A Cache-Control value (RFC 9111 5.2): comma-separated directives, each a token with an
 * optional `=token` or `="quoted"` argument; `max-age` a whole number of seconds within
 * 0..2^31-1, as `expires` is derived from it.
 */
export function parseCacheControl(setting: string, value: string): string {
  const directives = value.split(',').map((d) => d.trim());
  const problem = (why: string) => new ConfigError(setting, `${JSON.stringify(value)} ${why}`);
  if (directives.some((d) => d === '')) throw problem('has an empty directive');
  for (const directive of directives) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:=([!#$%&'*+.^_`|~0-9A-Za-z-]+|"[\x20\x21\x23-\x5b\x5d-\x7e]*"))?$/.exec(directive);
    if (!m) throw problem(`is not a Cache-Control value (directive ${JSON.stringify(directive)})`);
    if (m[1]!.toLowerCase() === 's-maxage' || m[1]!.toLowerCase() === 'max-age') {
      const seconds = m[2] ?? '';
      if (!/^\d{1,10}$/.test(seconds) || Number(seconds) > MAX_DELTA_SECONDS) {
        throw problem(`has ${m[1]} outside 0-${MAX_DELTA_SECONDS} seconds`);
      }
    }
  }
  return value;
}

/** HOST, ADMIN_HOST: an IPv4 or IPv6 address, or a host name (`localhost`, `api.internal`). */
function parseListenHost(setting: string, value: string): string {
  if (isIP(value) !== 0) return value;
  const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  const name = new RegExp(`^${label}(?:\\.${label})*\\.?$`);
  // A name of digits and dots only (999.1.1.1) is a mistyped address, never a host name.
  if (value.length <= 253 && name.test(value) && !/^[\d.]+$/.test(value)) return value;
  throw new ConfigError(setting, `${JSON.stringify(value)} is not an IP address or host name`);
}

function parseBaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = parseHttpUrl(value);
  if (url === undefined || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new ConfigError('BASE_URL', `${JSON.stringify(value)} is not an http(s) origin such as https://api.example.com`);
  }
  return url.origin;
}

function parseHttpUrl(value: string): URL | undefined {
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.username === '' && url.password === '' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `/doc/` or `https://docs.example.com/doc/`: a prefix ending in `/`. */
export function parseNamespace(setting: string, value: string): Namespace {
  const problem = `${JSON.stringify(value)} is not a path or absolute URL ending in "/"`;
  if (value.startsWith('/')) {
    if (!value.endsWith('/') || value.startsWith('//') || /[?#\s]/.test(value)) throw new ConfigError(setting, problem);
    return { origin: undefined, path: value };
  }
  const url = parseHttpUrl(value);
  if (url === undefined || !url.pathname.endsWith('/') || url.search !== '' || url.hash !== '') {
    throw new ConfigError(setting, problem);
  }
  return { origin: url.origin, path: url.pathname };
}

/** The time zone of the original's log files: midnight in Madrid starts a new file. */
const DEFAULT_LOG_TIMEZONE = 'Europe/Madrid';

function parseTimeZone(setting: string, value: string): string {
  // The default is known good: the zone list (400+ names built on first use) is left unbuilt.
  if (value === DEFAULT_LOG_TIMEZONE) return value;
  // A canonical name is checked against the list (cheap); building a formatter would load ICU
  // at start-up, 20 ms and 8 MiB, which the logs do without (they read the system's zone files).
  const lower = value.toLowerCase();
  const canonical = Intl.supportedValuesOf('timeZone').find((zone) => zone.toLowerCase() === lower);
  if (canonical !== undefined) return canonical;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(setting, `${JSON.stringify(value)} is not a known time zone`);
  }
}

/**
 * `WORKERS`: a whole number, or `auto` for one per core this process may run on (at most
 * MAX_WORKERS). More workers than cores is allowed (the server warns at start-up).
 */
function parseWorkers(value: string | undefined, cores: number): number {
  if (value === 'auto') return Math.max(1, Math.min(cores, MAX_WORKERS));
  if (value !== undefined && !/^\d+$/.test(value)) throw new ConfigError('WORKERS', `${JSON.stringify(value)} is not a whole number or auto`);
  return parseInteger('WORKERS', value, 1, 1, MAX_WORKERS);
}

/**
 * Credentials: each optional (README, "Settings": a feature that needs one says so when it runs, as the JWT
 * keys do for JWT_PASSPHRASE), each checked when set. Problems never echo the value.
 */
function parseSecrets(read: (name: string) => string | undefined, problems: ConfigError[]): Secrets {
  const secrets = {} as Record<keyof Secrets, string>;
  for (const name of SECRET_SETTINGS) {
    const value = read(name) ?? '';
    const problem = value === '' ? undefined : secretProblem(value);
    if (problem !== undefined) problems.push(new ConfigError(name, problem));
    secrets[name] = value;
  }
  return secrets;
}

/** What is wrong with a set credential, in words that never quote it; undefined when usable. */
function secretProblem(value: string): string | undefined {
  if (value.length < MIN_SECRET_LENGTH) {
    return `is shorter than ${MIN_SECRET_LENGTH} characters, too short to be masked where it could appear`;
  }
  if (value.length > MAX_SECRET_LENGTH) return `is longer than ${MAX_SECRET_LENGTH} characters`;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // A line break or other control character is a pasting accident, and would split a log line.
    if (code < 0x20 || code === 0x7f) return `contains a control character (at position ${i + 1})`;
  }
  return undefined;
}

function buildBrokerUrl(read: (name: string) => string | undefined, password: string): string {
  const host = read('BROKER_HOST') ?? 'localhost';
  if (!/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/.test(host)) {
    throw new ConfigError('BROKER_HOST', `${JSON.stringify(host)} is not a host name or address`);
  }
  const port = parseInteger('BROKER_PORT', read('BROKER_PORT'), 5672, 1, 65535);
  const user = read('BROKER_USER') ?? 'guest';
  const vhost = read('BROKER_VHOST') ?? '/';
  const credentials = `${encodeURIComponent(user)}${password === '' ? '' : `:${encodeURIComponent(password)}`}`;
  return `amqp://${credentials}@${host}:${port}/${encodeURIComponent(vhost)}`;
}

function deepFreeze<T>(value: T): T {
  // Typed arrays (address bytes) cannot be frozen; they are never handed out for writing.
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

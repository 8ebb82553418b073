/**
 * The parsers of config.ts's table: each reads one set (non-empty) value of a setting and throws
 * a ConfigError naming the setting when it is unusable.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { parseRedisUrl, type RedisEndpoint } from './redis-url.js';

export type AppEnv = 'dev' | 'prod' | 'test';

/** A namespace: a path prefix ending in `/`, optionally on its own origin. */
export interface Namespace {
  /** `https://docs.example.com` when the setting was an absolute URL, else undefined. */
  readonly origin: string | undefined;
  /** Always starts and ends with `/`. */
  readonly path: string;
}

/** The least and the greatest value a whole-number setting may take. */
export type Bounds = readonly [min: number, max: number];

/** What a parser may use besides the text: a whole-number setting is given its bounds. */
export type ParseFacts<T> = {
  /** The directory settings were read from; relative paths resolve against it. */
  readonly dir: string;
  /** The processors this process may run on: what `WORKERS=auto` means. */
  readonly cores: number;
} & (T extends number ? { readonly bounds: Bounds } : unknown);

/** Reads a set value of `setting`; an unusable one throws a ConfigError naming it. */
export type Parser<T> = (setting: string, text: string, facts: ParseFacts<T>) => T;

/**
 * A credential shorter than this could not be masked (masking words that short would garble
 * ordinary text), so it would reach log lines as sent: refused when set (docs/settings.md, "Every setting").
 */
export const MIN_SECRET_LENGTH = 4;
/** Every text written out is scanned for each credential: a bound on what one scan costs. */
export const MAX_SECRET_LENGTH = 4096;
/** The largest delta-seconds a cache can be sure to hold (RFC 9111 1.2.2). */
const MAX_DELTA_SECONDS = 2 ** 31 - 1;
/** The time zone of the original's log files: midnight in Madrid starts a new file. */
export const DEFAULT_LOG_TIMEZONE = 'Europe/Madrid';

/** A value taken as written. */
export const parseText: Parser<string> = (_setting, text) => text;

/** A path; a relative one resolves against the directory settings were read from. */
export const parsePath: Parser<string> = (_setting, text, { dir }) => resolve(dir, text);

/**
 * A parser from one of the syntaxes with a module of their own (trusted proxies and hosts, CORS
 * origins), whose plain Errors become ConfigErrors naming the setting.
 */
export function withSettingName<T>(parse: (text: string) => T): Parser<T> {
  return (setting, text) => {
    try {
      return parse(text);
    } catch (err) {
      throw new ConfigError(setting, (err as Error).message);
    }
  };
}

/** REDIS_URL: the parser's message names the setting already and never the password. */
export function parseRedisSetting(setting: string, text: string): RedisEndpoint {
  try {
    return parseRedisUrl(text);
  } catch (err) {
    throw new ConfigError(setting, (err as Error).message.replace(/^REDIS_URL: /, ''));
  }
}

export function parseAppEnv(setting: string, text: string): AppEnv {
  if (text === 'dev' || text === 'prod' || text === 'test') return text;
  throw new ConfigError(setting, `${JSON.stringify(text)} is not one of dev, prod, test`);
}

/** The words a flag may be written with, as Symfony's runtime reads them (any case). */
const FLAG_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['1', true], ['true', true], ['on', true], ['yes', true],
  ['0', false], ['false', false], ['off', false], ['no', false],
]);

/** A flag: `1/true/on/yes` or `0/false/off/no`, in any case, spaces around ignored. */
export function parseFlag(setting: string, text: string): boolean {
  const value = FLAG_WORDS.get(text.trim().toLowerCase());
  if (value === undefined) throw new ConfigError(setting, `${JSON.stringify(text)} is not a flag: 1, true, on, yes or 0, false, off, no`);
  return value;
}

export function parseInteger(setting: string, text: string, { bounds: [min, max] }: { readonly bounds: Bounds }): number {
  if (!/^\d+$/.test(text)) throw new ConfigError(setting, `${JSON.stringify(text)} is not a whole number`);
  const n = Number(text);
  if (n < min || n > max) throw new ConfigError(setting, `${text} is out of range (${min}-${max})`);
  return n;
}

/**
 * `WORKERS`: a whole number, or `auto` for one per core this process may run on (within the
 * bounds). More workers than cores is allowed (the server warns at start-up).
 */
export function parseWorkers(setting: string, text: string, facts: ParseFacts<number>): number {
  const [min, max] = facts.bounds;
  if (text === 'auto') return Math.max(min, Math.min(facts.cores, max));
  if (!/^\d+$/.test(text)) throw new ConfigError(setting, `${JSON.stringify(text)} is not a whole number or auto`);
  return parseInteger(setting, text, facts);
}

/**
 * A credential: each optional (docs/settings.md, "Every setting": a feature that needs one says so when it runs,
 * as the JWT keys do for JWT_PASSPHRASE), each checked when set. Problems never echo the value.
 */
export function parseSecret(setting: string, text: string): string {
  const problem = secretProblem(text);
  if (problem !== undefined) throw new ConfigError(setting, problem);
  return text;
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
export function parseListenHost(setting: string, value: string): string {
  if (isIP(value) !== 0) return value;
  const label = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  const name = new RegExp(`^${label}(?:\\.${label})*\\.?$`);
  // A name of digits and dots only (999.1.1.1) is a mistyped address, never a host name.
  if (value.length <= 253 && name.test(value) && !/^[\d.]+$/.test(value)) return value;
  throw new ConfigError(setting, `${JSON.stringify(value)} is not an IP address or host name`);
}

/** BASE_URL: an http(s) origin, given without its trailing slash. */
export function parseBaseUrl(setting: string, value: string): string {
  const url = parseHttpUrl(value);
  if (url === undefined || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(setting, `${JSON.stringify(value)} is not an http(s) origin such as https://api.example.com`);
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

export function parseTimeZone(setting: string, value: string): string {
  // The default, set explicitly, is known good: the zone list (400+ names built on first use) is left unbuilt.
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

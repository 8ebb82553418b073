/**
 * `REDIS_URL`: `redis://[[user]:password@]host[:port][/db]`, `rediss://` for TLS. Parsed by hand,
 * strictly and in one pass over the text (the WHATWG URL parser forgives tabs, backslashes and
 * odd hosts that a setting should refuse). Error messages name REDIS_URL and what is wrong, never
 * the text itself: it may hold a password.
 */
import { isIPv6 } from 'node:net';

/** Where Redis listens and how to log in: what `parseRedisUrl` returns. */
export interface RedisEndpoint {
  /** `rediss://`: TLS over TCP. */
  readonly tls: boolean;
  /** A host name, an IPv4 address, or an IPv6 address without its brackets. */
  readonly host: string;
  readonly port: number;
  /** The ACL user of `AUTH user password`; undefined sends `AUTH password` (the `default` user). */
  readonly username: string | undefined;
  /** Undefined sends no AUTH. Never logged: see `describeEndpoint`. */
  readonly password: string | undefined;
  /** The database `SELECT`ed on every connection (0 sends none). */
  readonly db: number;
}

export const DEFAULT_REDIS_PORT = 6379;

/** The largest database index: Redis reads it as a C `int`. */
export const MAX_REDIS_DB = 2 ** 31 - 1;

const EXPECTED = 'expected redis://[[user]:password@]host[:port][/db] or rediss://…';

/** RFC 3986 3.2.1: unreserved, sub-delims and ':' may appear raw in userinfo; the rest is %XX. */
const USERINFO_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:%";

/** A host name's letters (RFC 1123 labels; `_` as some internal names have). */
const HOST_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._';

function invalid(reason: string): Error {
  return new Error(`REDIS_URL: ${reason}; ${EXPECTED}`);
}

/** Parses `REDIS_URL`; throws an Error naming REDIS_URL (and never the password) when it is not one. */
export function parseRedisUrl(text: string): RedisEndpoint {
  const schemeEnd = text.indexOf('://');
  const scheme = schemeEnd === -1 ? '' : text.slice(0, schemeEnd).toLowerCase();
  if (scheme !== 'redis' && scheme !== 'rediss') throw invalid('the scheme must be redis:// or rediss://');
  const rest = text.slice(schemeEnd + 3);
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) throw invalid('spaces, control and non-ASCII characters must be percent-encoded');
    if (c === 0x3f || c === 0x23) throw invalid('no query (?) or fragment (#) is allowed');
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const db = parseDb(slash === -1 ? '' : rest.slice(slash + 1));
  // The last '@' ends userinfo: a raw '@' in a password lands in userinfo and is refused there.
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? { username: undefined, password: undefined } : parseUserinfo(authority.slice(0, at));
  const { host, port } = parseHostPort(authority.slice(at + 1));
  return Object.freeze({ tls: scheme === 'rediss', host, port, ...credentials, db });
}

/** `redis://user@host:port/db` (or `rediss://`), without the password: for logs and error messages. */
export function describeEndpoint(endpoint: RedisEndpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const user = endpoint.username === undefined ? '' : `${encodeURIComponent(endpoint.username)}@`;
  return `${endpoint.tls ? 'rediss' : 'redis'}://${user}${host}:${endpoint.port}/${endpoint.db}`;
}

function parseUserinfo(userinfo: string): { username: string | undefined; password: string } {
  for (let i = 0; i < userinfo.length; i++) {
    if (!USERINFO_CHARS.includes(userinfo[i]!)) throw invalid('the user and password must percent-encode characters such as @ / ? # [ ]');
  }
  const colon = userinfo.indexOf(':');
  if (colon === -1) throw invalid('credentials are user:password or :password');
  const username = percentDecode(userinfo.slice(0, colon), 'user');
  const password = percentDecode(userinfo.slice(colon + 1), 'password');
  if (password === '') throw invalid('the password is empty');
  return { username: username === '' ? undefined : username, password };
}

function percentDecode(text: string, what: string): string {
  for (let i = text.indexOf('%'); i !== -1; i = text.indexOf('%', i + 1)) {
    if (!isHexDigit(text.charCodeAt(i + 1)) || !isHexDigit(text.charCodeAt(i + 2))) throw invalid(`a % in the ${what} must start %XX`);
  }
  try {
    return decodeURIComponent(text);
  } catch {
    throw invalid(`the ${what} does not decode to UTF-8`);
  }
}

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function parseHostPort(hostport: string): { host: string; port: number } {
  let host: string;
  let portText: string | undefined;
  if (hostport.startsWith('[')) {
    // '[::1]:6380': the brackets hold an IPv6 address (RFC 3986 3.2.2)
    const close = hostport.indexOf(']');
    if (close === -1) throw invalid('an IPv6 host needs its closing ]');
    host = hostport.slice(1, close);
    if (!isIPv6(host)) throw invalid('the host in [ ] is not an IPv6 address');
    const after = hostport.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw invalid('only :port may follow an IPv6 host');
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = hostport.indexOf(':');
    host = colon === -1 ? hostport : hostport.slice(0, colon);
    portText = colon === -1 ? undefined : hostport.slice(colon + 1);
    if (host === '') throw invalid('the host is missing');
    for (let i = 0; i < host.length; i++) {
      if (!HOST_CHARS.includes(host[i]!)) throw invalid('the host has a character outside letters, digits, - . _ (an IPv6 host goes in [ ])');
    }
  }
  if (portText === undefined) return { host, port: DEFAULT_REDIS_PORT };
  const port = parseDecimal(portText, 65_535);
  if (port === undefined || port === 0) throw invalid('the port must be a number from 1 to 65535');
  return { host, port };
}

function parseDb(path: string): number {
  if (path === '') return 0; // 'redis://host' and 'redis://host/'
  const db = parseDecimal(path, MAX_REDIS_DB);
  if (db === undefined) throw invalid(`the path must be a database number from 0 to ${MAX_REDIS_DB}`);
  return db;
}

/** Digits only, no sign, no leading zero, at most `max`; undefined otherwise. */
function parseDecimal(text: string, max: number): number | undefined {
  if (text === '' || text.length > 10 || (text.length > 1 && text.startsWith('0'))) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value <= max ? value : undefined;
}

/**
 * Request targets of every shape a hostile client can write: encoded dots and slashes, NUL,
 * double and overlong encodings, invalid percent signs, backslashes, absolute form, `*`,
 * huge paths and raw non-ASCII bytes. Text is latin1: one character is one byte on the wire.
 */
import type { Random } from './rng.js';

/** Stands for a profiler token seen earlier in the run; replaced when the case is sent. */
export const TOKEN_PLACEHOLDER = 'PRFTKN';

/** Paths that reach every part of the service, before any mutation. */
const BASE_PATHS = [
  '/',
  '/?q=1',
  '/static/hello.txt',
  '/static/big.bin',
  '/static/sub/page.html',
  '/static/sub/data.json',
  '/static/sub/',
  '/static/sub',
  '/static/',
  '/static',
  '/static/.hidden',
  '/static/.git/config',
  '/static/sub/.env',
  '/static/link.txt',
  '/static/missing.txt',
  '/api/posters',
  '/api/user/reg',
  '/doc/1.0/lock',
  '/.well-known/security.txt',
  '/robots.txt',
  '/favicon.ico',
  '/admin/',
  '/schema/1.0/poster.json',
  `/_profiler/${TOKEN_PLACEHOLDER}`,
  `/_profiler/${TOKEN_PLACEHOLDER}?panel=request`,
  `/_profiler/${TOKEN_PLACEHOLDER}?panel=exception`,
  `/_profiler/${TOKEN_PLACEHOLDER}?panel=logger`,
  `/_profiler/${TOKEN_PLACEHOLDER}?panel=config`,
  `/_profiler/${TOKEN_PLACEHOLDER}/exception`,
  `/_profiler/${TOKEN_PLACEHOLDER}/exception.css`,
  '/_profiler/search_bar?panel=logger',
  '/_profiler/open?file=src/app/app.ts&line=12',
  '/_profiler/open?file=../.env',
  '/_profiler/open?file=%2e%2e/%2e%2e/etc/passwd',
  '/_profiler/open?file=/etc/passwd',
  '/_profiler/000000',
  '/_profiler/',
];

const DOT_FORMS = ['%2e', '%2E', '%252e', '%c0%ae', '%e0%80%ae', '%u002e', '.'];
const SLASH_FORMS = ['%2f', '%2F', '%252f', '%c0%af', '%5c', '%5C', '\\', '%00', '%2500'];
const BAD_PERCENT = ['%', '%z', '%zz', '%1', '%g0', '%e2%82', '%ff', '%c3', '%00', '%%', '%-1'];
const INSERTS = ['/../', '/./', '//', '/..%2f', '/%2e%2e/', '/.%2e/', '\\..\\', '/..;/', '/;/', '/%20/', '/.../'];
const RAW_NON_ASCII = ['\xe9', '\xff', '\x80', '\xc3\xa9', '\xe6\x97\xa5\xe6\x9c\xac', '\xf0\x9f\x92\xa9', '\xc0\xae', '\xed\xa0\x80'];
const ODD_BYTES = ['\x01', '\x7f', '\t', '"', '<', '>', '`', '{', '}', '|', '^', "'"];
const AUTHORITIES = ['localhost', '127.0.0.1:8000', 'example.org', '[::1]', 'EXAMPLE.org:443', 'a..b', 'évil.test', 'user:pass@host', 'h:99999', ''];

/** A request target for `method`; `secrets` are slipped in now and then. */
export function buildTarget(r: Random, method: string, secrets: readonly string[]): string {
  if (method === 'CONNECT' && r.chance(0.6)) return r.pick(['localhost:443', 'example.org:80', '127.0.0.1:1', '[::1]:443', 'host', ':80']);
  if (r.chance(0.04)) return '*';
  let target = r.pick(BASE_PATHS);
  const mutations = r.weighted([[4, 0], [4, 1], [2, 2], [1, 4]]);
  for (let i = 0; i < mutations; i++) target = mutate(r, target, secrets);
  if (r.chance(0.06)) target = `${r.pick(['http', 'https', 'HTTP', 'ftp', 'x-y+z.'])}://${r.pick(AUTHORITIES)}${target.startsWith('/') ? target : `/${target}`}`;
  if (r.chance(0.03)) target = hugePath(r);
  return target;
}

function mutate(r: Random, target: string, secrets: readonly string[]): string {
  switch (r.int(0, 11)) {
    case 0:
      return replaceSome(r, target, '.', () => r.pick(DOT_FORMS));
    case 1:
      return insertAt(r, target, r.pick(SLASH_FORMS));
    case 2:
      return insertAt(r, target, r.pick(BAD_PERCENT));
    case 3:
      return insertAt(r, target, r.pick(INSERTS));
    case 4:
      return replaceSome(r, target, '/', () => r.pick(['\\', '%5c', '//']));
    case 5:
      return `${target}${r.pick(['?', '#', '?a=1&b=%zz', '?' + '&'.repeat(r.int(1, 200)), '#x?y', '?panel=' + r.pick(['config', '', '%00'])])}`;
    case 6:
      return insertAt(r, target, r.pick([';a=1', ';', ';jsessionid=x', ':', '@', '~', '!$&()*+,=']));
    case 7:
      return insertAt(r, target, r.pick(RAW_NON_ASCII));
    case 8:
      return insertAt(r, target, r.chance(0.5) ? r.pick(ODD_BYTES) : String.fromCharCode(r.int(0, 255)));
    case 9:
      return target.toUpperCase();
    case 10:
      return `/${r.pick(secrets)}${target}`;
    default:
      return `${target}${r.chance(0.5) ? '/' : ''}${r.text('abc%2e./', r.length(64))}`;
  }
}

/** Replaces one, several or all occurrences of `needle`. */
function replaceSome(r: Random, text: string, needle: string, by: () => string): string {
  const all = r.chance(0.3);
  let out = '';
  for (const ch of text) out += ch === needle && (all || r.chance(0.5)) ? by() : ch;
  return out;
}

function insertAt(r: Random, text: string, piece: string): string {
  const at = r.int(1, Math.max(1, text.length));
  return text.slice(0, at) + piece + text.slice(at);
}

/** 1 to 20 KiB of segments: some fit Node's 16 KiB head limit, some do not. */
function hugePath(r: Random): string {
  const unit = r.pick(['/a', '/%2e%2e', '/..', '//', '/x%00', '/static', '/\xe9', '/aaaaaaaaaaaaaaaaaaaa']);
  return `/static${unit.repeat(Math.ceil(r.int(1024, 20 * 1024) / unit.length))}`;
}

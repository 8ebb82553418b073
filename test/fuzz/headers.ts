/**
 * Header fields of hostile shapes: long Referer / Accept / If-None-Match / Range /
 * X-Forwarded-For values, tunnelled methods, bearer tokens, dates, and the configured secrets
 * slipped into places the service may echo. Text is latin1: one character is one byte.
 */
import type { Random } from './rng.js';

/** What the generator knows of the service under test. */
export interface GeneratorEnv {
  /** Configured secret values: sent now and then, never to be seen back. */
  readonly secrets: readonly string[];
  /** A valid bearer token for the poster API. */
  readonly validToken: string;
  /** The strong ETag and Last-Modified (HTTP-date) of a served file. */
  readonly etag: string;
  readonly lastModified: string;
  /** Methods left out (FUZZ_EXCLUDE), while a known crash would hide everything else. */
  readonly excludedMethods: readonly string[];
}

export type Header = readonly [name: string, value: string];

/** `unit` repeated to about `length` characters. */
function repeat(unit: string, length: number): string {
  return unit.repeat(Math.max(1, Math.ceil(length / unit.length)));
}

/** A hostile filler of up to `max` characters: runs of the characters parsers loop over. */
export function hostileText(r: Random, max: number): string {
  const n = r.length(max);
  switch (r.int(0, 12)) {
    case 0: return repeat(' ', n) + 'x';
    case 1: return repeat(',', n);
    case 2: return repeat(', ', n) + ',';
    case 3: return '"' + repeat('a', n);
    case 4: return repeat('"', n);
    case 5: return repeat('9', n);
    case 6: return repeat(';q=', n);
    case 7: return repeat('W/', n) + '"';
    case 8: return repeat('\xc3', n);
    case 9: return repeat('\t', n) + 'x';
    case 10: return repeat('=', n);
    case 11: return r.text('abc", ;=/-*W09\t\\', n);
    default: return repeat('1.', n);
  }
}

function httpDates(r: Random, env: GeneratorEnv): string {
  return r.pick([
    env.lastModified,
    'Sun, 06 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 GMT',
    'Sun Nov  6 08:49:37 1994',
    'Thu, 01 Jan 2099 00:00:00 GMT',
    'Thu, 01 Jan 1970 00:00:00 GMT',
    'Mon, 31 Feb 2022 25:61:61 GMT',
    'Fri, 31 Dec 9999 23:59:59 GMT',
    '0',
    '-1',
    '',
    env.lastModified.toLowerCase(),
    ` ${env.lastModified} `,
    repeat('9', r.int(1, 4096)),
    hostileText(r, 2048),
  ]);
}

function entityTags(r: Random, env: GeneratorEnv): string {
  return r.pick([
    env.etag,
    `W/${env.etag}`,
    '*',
    ' * ',
    '"x", ' + env.etag,
    '"x",,,,' + `W/${env.etag}`,
    '"unclosed',
    'W/',
    'W/"',
    '""',
    env.etag.slice(1, -1),
    repeat(`${env.etag}, `, r.int(1, 2000)),
    repeat('"a",', r.int(1, 3000)),
    hostileText(r, 8192),
  ]);
}

function ranges(r: Random): string {
  return r.pick([
    'bytes=0-0',
    'bytes=0-9',
    'bytes=-500',
    'bytes=100-',
    'bytes=204799-',
    'bytes=204800-',
    'bytes=9999999-',
    'bytes=-0',
    'bytes=0-1,5-9',
    'BYTES = 1-2',
    'bytes=5-1',
    'items=0-1',
    'bytes=' + repeat('9', r.int(16, 400)) + '-',
    'bytes=-' + repeat('0', r.int(1, 400)) + '1',
    'bytes=' + repeat('0-0,', r.int(1, 3000)),
    'bytes=' + hostileText(r, 4096),
    hostileText(r, 4096),
  ]);
}

function forwardedFor(r: Random, env: GeneratorEnv): string {
  return r.pick([
    '203.0.113.7',
    '203.0.113.7, 10.0.0.1',
    '2001:db8::1, 127.0.0.1',
    '::ffff:198.51.100.9',
    'unknown',
    '[2001:db8::1]:443',
    '999.1.1.1',
    repeat('10.0.0.1, ', r.int(1, 1500)),
    repeat('1.', r.int(1, 4000)),
    repeat(':', r.int(1, 4000)),
    `${r.pick(env.secrets)}, 203.0.113.7`,
    hostileText(r, 8192),
  ]);
}

function accepts(r: Random): string {
  return r.pick([
    'application/json',
    'application/problem+json',
    'text/html',
    '*/*',
    'text/html;q=0.9, application/json',
    'application/json;q=0, text/html',
    'application/vnd.x+json;q=0.5',
    'application/json;q=NaN',
    'application/json;q=1e999',
    'text/*;q=0.1, application/*;q=0.2',
    repeat('a/b;q=0.1, ', r.int(1, 1500)),
    repeat('application/json;', r.int(1, 800)),
    hostileText(r, 8192),
  ]);
}

function methodOverrides(r: Random): string {
  return r.pick(['HEAD', 'head', 'GET', 'DELETE', 'OPTIONS', 'PUT', 'CONNECT', 'TRACE', 'h3ad', '', ' HEAD', 'HEAD\t', repeat('A', r.int(1, 8000))]);
}

function authorizations(r: Random, env: GeneratorEnv): string {
  return r.pick([
    `Bearer ${env.validToken}`,
    `bearer ${env.validToken}`,
    `Bearer    ${env.validToken}   `,
    `Bearer ${env.validToken}x`,
    'Bearer a.b.c',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    `Bearer ${r.pick(env.secrets)}`,
    'Bearer ' + repeat('A', r.int(1, 9000)),
    'Bearer ' + repeat('a=', r.int(1, 4000)) + '!',
    'bearer' + repeat(' ', r.int(1, 4000)) + '!',
  ]);
}

function referers(r: Random, env: GeneratorEnv): string {
  return r.pick([
    'http://example.org/page',
    '<script>alert(1)</script>',
    '"quoted" & \'single\'',
    '\xe9\xe8\xff\xc3(',
    '\x1b[31mred',
    `https://x.test/?key=${r.pick(env.secrets)}`,
    repeat('\\u000a', r.int(1, 2000)),
    repeat('\xc3', r.int(1, 8000)),
    hostileText(r, 12 * 1024),
  ]);
}

/** Zero or more optional fields, each of a hostile or ordinary shape. */
export function extraHeaders(r: Random, env: GeneratorEnv): Header[] {
  const headers: Header[] = [];
  const count = r.weighted([[3, 0], [4, 2], [2, 4], [1, 8]]);
  for (let i = 0; i < count; i++) headers.push(oneHeader(r, env));
  return headers;
}

function oneHeader(r: Random, env: GeneratorEnv): Header {
  switch (r.int(0, 19)) {
    case 0: return ['Referer', referers(r, env)];
    case 1: return ['Accept', accepts(r)];
    case 2: return ['If-None-Match', entityTags(r, env)];
    case 3: return ['If-Match', entityTags(r, env)];
    case 4: return ['If-Modified-Since', httpDates(r, env)];
    case 5: return ['If-Unmodified-Since', httpDates(r, env)];
    case 6: return ['Range', ranges(r)];
    case 7: return ['If-Range', r.chance(0.5) ? entityTags(r, env) : httpDates(r, env)];
    case 8: return ['X-Forwarded-For', forwardedFor(r, env)];
    case 9: return ['X-Forwarded-Proto', r.pick(['https', 'http', 'HTTPS , http', 'gopher', hostileText(r, 512)])];
    case 10: return [r.pick(['X-HTTP-Method', 'x-http-method', 'X-Http-Method-Override']), methodOverrides(r)];
    case 11: return ['Authorization', authorizations(r, env)];
    case 12: return ['Content-Type', r.pick(['application/json', 'application/json; charset=utf-8', ' APPLICATION/JSON ;', 'text/plain', ';;;;', hostileText(r, 2048)])];
    case 13: return ['Connection', r.pick(['keep-alive', 'close', 'Keep-Alive, TE', 'upgrade'])];
    case 14: return ['Cookie', `session=${r.chance(0.3) ? r.pick(env.secrets) : 'abc'}; ${hostileText(r, 2048)}`];
    case 15: return ['User-Agent', r.pick(['curl/8', 'Mozilla/5.0', hostileText(r, 4096)])];
    case 16: return ['Range', 'bytes=0-99'];
    case 17: return [`X-${r.text('abcdefghij-', r.int(1, 12))}`, hostileText(r, 4096)];
    case 18: return ['Accept', 'application/json'];
    default: return [r.pick(['X-Big', 'Referer', 'Accept']), repeat('a', r.int(12 * 1024, 20 * 1024))];
  }
}

/**
 * Property: every parser of client text runs in time linear in its input. For each parser and
 * each hostile shape, the time for 2n characters is at most MAX_RATIO times the time for n
 * (linear gives 2; quadratic gives 4). The static file headers' parsers also keep their budget:
 * any 16 KiB value in under 5 ms (SECURITY.md; the fast tier counts their work instead).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerToken } from '../../src/jwt/index.js';
import { escapeControl, formatLine } from '../../src/log/index.js';
import { hostnameOf } from '../../src/http/hosts.js';
import { isValidHost, parseTrustedProxies } from '../../src/config/index.js';
import { negotiate, parseAccept } from '../../src/http/negotiation.js';
import { validatePosterSpec } from '../../src/render/spec.js';
import { resolveClientIp } from '../../src/http/proxies.js';
import { mediaTypeOf } from '../../src/http/request-body.js';
import { decodeUtf8, effectiveMethod, parseTarget } from '../../src/http/request.js';
import { splitPath } from '../../src/core/router.js';
import { evaluatePreconditions, ifRangeHolds, parseEntityTagList, parseHttpDate } from '../../src/static/conditional.js';
import { decideRange } from '../../src/static/ranges.js';
import { hostileShapes } from '../static/hostile-shapes.js';
import { measureGrowth } from './timing.js';

/** n, in characters (FUZZ_PARSE_CHARS): n/2, n and 2n are measured. */
const N = Number(process.env.FUZZ_PARSE_CHARS ?? 32 * 1024);
/** Linear time doubles; this leaves room for a loaded machine and still catches n². */
const MAX_RATIO = 3;
/** A shape over the ratio is measured again this many times; the best ratio counts. */
const RETRIES = 2;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const VALIDATORS = { etag: '"c-18eac5f1013025ba"', lastModified: Date.UTC(2025, 0, 2, 3, 4, 5) };
const TRUST_ALL = parseTrustedProxies('REMOTE_ADDR,private_ranges');

/** `unit` repeated to `n` characters (cut to fit) between `head` and `tail`. */
const fill = (unit: string, head = '', tail = '') => (n: number) =>
  head + unit.repeat(Math.ceil(Math.max(0, n - head.length - tail.length) / unit.length)).slice(0, Math.max(0, n - head.length - tail.length)) + tail;

/** Shapes every parser gets: the runs header grammars loop over, each failing late. */
const COMMON_SHAPES: Record<string, (n: number) => string> = {
  'spaces then x': fill(' ', '', 'x'),
  'tabs then x': fill('\t', '', 'x'),
  commas: fill(','),
  'comma-space pairs': fill(', ', '', ','),
  quotes: fill('"'),
  'an unclosed quote': fill('a', '"'),
  'backslash-quote pairs': fill('\\"', '"'),
  'W/ repeats': fill('W/', '', '"'),
  digits: fill('9'),
  'digits then x': fill('9', '', 'x'),
  'digit-hyphen pairs': fill('1-', 'bytes='),
  'equals signs': fill('='),
  semicolons: fill(';'),
  'q parameters': fill(';q=0.1', 'a/b'),
  'media ranges': fill('a/b;q=0.1, '),
  'letters then !': fill('a', '', '!'),
  'word characters then /': fill('a', '', '/ x'),
  'addresses': fill('10.0.0.1, '),
  'colons': fill(':'),
  'dots then colon': fill('1.', '', ':x'),
  'bracket then colons': fill(':', '[', 'x'),
  'percent signs': fill('%'),
  'percent-2 pairs': fill('%2'),
  'encoded dots': fill('%2e'),
  slashes: fill('/'),
  'dot segments': fill('/..'),
  'latin1 bytes': fill('\xc3'),
  'UTF-8 pairs': fill('\xc3\xa9'),
  'control characters': fill('\x01'),
  'C1 control characters': fill('\x80'),
  'newlines': fill('\r\n'),
  'lone surrogates': fill('\ud800'),
  'bearer then spaces': fill(' ', 'Bearer', '!'),
  'bearer then token then !': fill('a', 'Bearer ', '!'),
  'bearer token then equals then !': fill('=', 'Bearer a', ' !'),
  'scheme then letters': fill('a', 'http://', ' '),
  'hash and question marks': fill('?#'),
};

type Parser = (input: string) => unknown;

const PARSERS: Record<string, Parser> = {
  parseEntityTagList: (v) => parseEntityTagList(v),
  'evaluatePreconditions (If-Match, If-None-Match)': (v) => evaluatePreconditions({ ifMatch: v, ifNoneMatch: v }, VALIDATORS, NOW),
  'evaluatePreconditions (dates)': (v) => evaluatePreconditions({ ifUnmodifiedSince: v, ifModifiedSince: v }, VALIDATORS, NOW),
  ifRangeHolds: (v) => ifRangeHolds(v, VALIDATORS, NOW),
  'ifRangeHolds (W/ prefix)': (v) => ifRangeHolds(`W/${v}`, VALIDATORS, NOW),
  decideRange: (v) => decideRange(v, 204_800),
  'decideRange (bytes= prefix)': (v) => decideRange(`bytes=${v}`, 204_800),
  parseHttpDate: (v) => parseHttpDate(v, NOW),
  parseAccept: (v) => parseAccept(v),
  negotiate: (v) => negotiate(v),
  resolveClientIp: (v) => resolveClientIp(TRUST_ALL, '127.0.0.1', v),
  bearerToken: (v) => bearerToken(v),
  effectiveMethod: (v) => effectiveMethod('POST', v),
  parseTarget: (v) => parseTarget(v),
  'parseTarget (absolute form)': (v) => parseTarget(`http://${v}`),
  decodeUtf8: (v) => decodeUtf8(v),
  mediaTypeOf: (v) => mediaTypeOf(v),
  isValidHost: (v) => isValidHost(v),
  hostnameOf: (v) => hostnameOf(v),
  splitPath: (v) => splitPath(`/${v}`),
  'validatePosterSpec (text members)': (v) => validatePosterSpec({ title: v, subtitle: v, body: v, textColor: v, align: v }),
  formatLine: (v) => formatLine('2025-01-01 00:00:00', 'request', 'ERROR', v),
  escapeControl: (v) => escapeControl(v),
};

/** Poster specs of about n bytes of JSON, parsed before timing as the API parses them. */
const SPEC_SHAPES: Record<string, (n: number) => unknown> = {
  'unknown members': (n) => JSON.parse(`{${Array.from({ length: n >> 4 }, (_, i) => `"member${i}":${i}`).join(',')}}`),
  'index-like members': (n) => JSON.parse(`{${Array.from({ length: n >> 3 }, (_, i) => `"${i}":0`).join(',')}}`),
  'too many shapes': (n) => ({ title: 'x', shapes: JSON.parse(`[${'{"kind":"circle","cx":1,"cy":2,"r":3,"color":"#ffffff"},'.repeat(n >> 6)}{}]`) }),
  'bad shapes': (n) => ({ title: 'x', shapes: JSON.parse(`[${'{"kind":"x","a":"~/~/"},'.repeat(n >> 5)}{}]`) }),
  'nested arrays': (n) => JSON.parse(`{"title":${'['.repeat(n >> 2)}${']'.repeat(n >> 2)}}`),
  'long colours': (n) => ({ title: 'x', background: { from: `#${'f'.repeat(n)}`, to: '#', angle: 1 }, textColor: '#'.repeat(n) }),
  'text with line breaks': (n) => ({ title: 'x', body: '\r\n'.repeat(n >> 1), subtitle: '\u0301'.repeat(n) }),
};

describe('validatePosterSpec runs in linear time', () => {
  it(`2n bytes of spec cost at most ${MAX_RATIO}x n, for every hostile shape`, () => assertLinear('validatePosterSpec', validatePosterSpec, SPEC_SHAPES));
});

/** Fails naming every shape on which `parse` grows faster than linearly. */
function assertLinear<T>(name: string, parse: (input: T) => unknown, shapes: Record<string, (n: number) => T>): void {
  const slow: string[] = [];
  for (const [shape, make] of Object.entries(shapes)) {
    let best = measureGrowth(parse, make, N);
    for (let retry = 0; retry < RETRIES && best.ratio >= MAX_RATIO; retry++) {
      const again = measureGrowth(parse, make, N);
      if (again.ratio < best.ratio) best = again;
    }
    if (best.ratio >= MAX_RATIO) {
      const [half, full, double] = best.times.map((t) => t.toFixed(3));
      slow.push(`"${shape}": ${half} / ${full} / ${double} ms at ${N / 2} / ${N} / ${2 * N} (x${best.ratio.toFixed(2)} per doubling)`);
    }
  }
  assert.deepEqual(slow, [], `${name} grows faster than linearly:\n  ${slow.join('\n  ')}`);
}

describe('parsers of client text run in linear time', () => {
  for (const [name, parse] of Object.entries(PARSERS)) {
    it(`${name}: 2n characters cost at most ${MAX_RATIO}x n, for every hostile shape`, () => assertLinear(name, parse, COMMON_SHAPES));
  }
});

/** The budget of one static header value of 16 KiB, whatever its shape (SECURITY.md). */
const MAX_PARSE_MS = 5;
const VALUE_LENGTH = 16 * 1024;
/** The fastest of a few runs: a run slowed by a collection or the scheduler does not count. */
const BUDGET_RUNS = 5;

function fastestMs(parse: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < BUDGET_RUNS; i++) {
    const start = performance.now();
    parse();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const STATIC_HEADERS: Record<string, Parser> = {
  'entity-tag list': (v) => parseEntityTagList(v),
  preconditions: (v) => {
    evaluatePreconditions({ ifMatch: v, ifNoneMatch: v }, VALIDATORS, NOW);
    evaluatePreconditions({ ifUnmodifiedSince: v, ifModifiedSince: v }, VALIDATORS, NOW);
  },
  'If-Range': (v) => [ifRangeHolds(v, VALIDATORS, NOW), ifRangeHolds(`W/${v}`, VALIDATORS, NOW)],
  Range: (v) => [decideRange(v, 1000), decideRange(`bytes=${v}`, 1000)],
  'HTTP-date': (v) => parseHttpDate(v, NOW),
};

describe(`static header parsing time: any 16 KiB value in under ${MAX_PARSE_MS} ms`, () => {
  for (const [header, parse] of Object.entries(STATIC_HEADERS)) {
    it(`${header}: every hostile shape of 16 KiB in under ${MAX_PARSE_MS} ms`, () => {
      const slow = hostileShapes(VALUE_LENGTH)
        .map(([shape, value]) => [shape, fastestMs(() => parse(value))] as const)
        .filter(([, ms]) => ms >= MAX_PARSE_MS)
        .map(([shape, ms]) => `"${shape}" took ${ms.toFixed(2)} ms`);
      assert.deepEqual(slow, [], `${header} at 16 KiB:\n  ${slow.join('\n  ')}`);
    });
  }
});

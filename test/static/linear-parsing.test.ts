/**
 * The static file headers' parsers read a hostile 16 KiB value in linear time (SECURITY.md:
 * header parsing time). Counted here, not timed: every character a parser looks at through a
 * string method is counted while it runs, so the check gives the same answer on a busy machine.
 * The time itself (< 5 ms at 16 KiB, and its growth) is the fuzz tier's: test/fuzz/parsers.fuzz.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluatePreconditions, ifRangeHolds, parseEntityTagList, parseHttpDate } from '../../src/static/conditional.js';
import { decideRange } from '../../src/static/ranges.js';
import { hostileShapes } from './hostile-shapes.js';

const VALUE_LENGTH = 16 * 1024;
/** Looks per character of the value: a few per field a call parses; quadratic work gives thousands. */
const MAX_LOOKS_PER_CHARACTER = 8;
/** A shape cut to fit ends a few characters differently at 32 KiB: room for that, not for growth. */
const TAIL_LOOKS = 64;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const VALIDATORS = { etag: '"d-1"', lastModified: Date.UTC(2025, 0, 2, 3, 4, 5) };

type Method = (this: string, ...args: unknown[]) => unknown;
/** Characters a call of each string method looks at; any method not named costs the whole string. */
const LOOKS: Record<string, (text: string, args: unknown[], result: unknown) => number> = {
  charCodeAt: () => 1,
  codePointAt: () => 1,
  charAt: () => 1,
  at: () => 1,
  startsWith: (_, [search]) => String(search).length,
  endsWith: (_, [search]) => String(search).length,
  slice: (_, __, result) => (result as string).length,
  substring: (_, __, result) => (result as string).length,
  indexOf: (text, [, from], result) => ((result as number) < 0 ? text.length : (result as number) + 1) - Number(from ?? 0),
  includes: (text) => text.length,
  lastIndexOf: (text) => text.length,
};
const STRING_METHODS = Object.getOwnPropertyNames(String.prototype).filter(
  (name) => name !== 'constructor' && name !== 'toString' && name !== 'valueOf' && typeof (String.prototype as unknown as Record<string, unknown>)[name] === 'function',
);

/** The characters `parse` looks at through String.prototype's methods while it runs. */
function looksOf(parse: () => unknown): number {
  const prototype = String.prototype as unknown as Record<string, Method>;
  const originals = new Map(STRING_METHODS.map((name) => [name, prototype[name]!]));
  let looks = 0;
  for (const [name, original] of originals) {
    const cost = LOOKS[name] ?? ((text: string) => text.length);
    prototype[name] = function (this: string, ...args: unknown[]) {
      const result = original.apply(this, args);
      looks += Math.max(1, cost(String(this), args, result));
      return result;
    };
  }
  try {
    parse();
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
  return looks;
}

/**
 * Asserts every hostile shape costs at most MAX_LOOKS_PER_CHARACTER looks a character at 16 KiB,
 * and no more than twice as many at 32 KiB: linear work doubles, n log n or n² grows more.
 */
function assertLinear(header: string, parse: (value: string) => unknown): void {
  const twice = new Map(hostileShapes(2 * VALUE_LENGTH));
  for (const [shape, value] of hostileShapes(VALUE_LENGTH)) {
    const looks = looksOf(() => parse(value));
    const looksAtTwice = looksOf(() => parse(twice.get(shape)!));
    assert.ok(looks <= MAX_LOOKS_PER_CHARACTER * VALUE_LENGTH, `${header}: "${shape}" looked at ${looks} characters of 16 KiB`);
    assert.ok(looksAtTwice <= 2 * looks + TAIL_LOOKS, `${header}: "${shape}" looked at ${looks} characters of 16 KiB, ${looksAtTwice} of 32 KiB`);
  }
}

describe('static header parsing work', () => {
  it('counts what it measures: a parser that rescans the rest of the value at each character fails', () => {
    const rescanning = (value: string) => {
      for (let i = 0; i < value.length; i++) if (value.slice(i).startsWith('x')) return i;
      return -1;
    };
    assert.throws(() => assertLinear('a rescanning parser', rescanning), /looked at \d+ characters/);
  });

  it('parses If-None-Match ", <16 KiB of spaces> x" looking at each character a few times, and finds it malformed', () => {
    const value = `,${' '.repeat(VALUE_LENGTH - 2)}x`;
    assert.ok(looksOf(() => parseEntityTagList(value)) <= MAX_LOOKS_PER_CHARACTER * VALUE_LENGTH);
    assert.equal(parseEntityTagList(value), undefined, 'malformed');
  });

  it('parses every hostile entity-tag list of 16 KiB in linear work', () => assertLinear('entity-tag list', parseEntityTagList));

  it('evaluates If-Match, If-None-Match and both dates of 16 KiB in linear work', () =>
    assertLinear('preconditions', (value) => {
      evaluatePreconditions({ ifMatch: value, ifNoneMatch: value }, VALIDATORS, NOW);
      evaluatePreconditions({ ifUnmodifiedSince: value, ifModifiedSince: value }, VALIDATORS, NOW);
    }));

  it('evaluates If-Range of 16 KiB in linear work, tag- or date-shaped', () =>
    assertLinear('If-Range', (value) => {
      ifRangeHolds(value, VALIDATORS, NOW);
      ifRangeHolds(`W/${value}`, VALIDATORS, NOW);
    }));

  it('decides a Range of 16 KiB in linear work', () =>
    assertLinear('Range', (value) => {
      decideRange(value, 1000);
      decideRange(`bytes=${value}`, 1000);
    }));

  it('parses an HTTP-date of 16 KiB in linear work', () => assertLinear('HTTP-date', (value) => parseHttpDate(value, NOW)));
});

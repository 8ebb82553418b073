import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluatePreconditions, ifRangeHolds, parseEntityTagList, parseHttpDate } from '../../src/static/conditional.js';
import { decideRange } from '../../src/static/ranges.js';
import { hostileShapes } from './hostile-shapes.js';

/** The contract: a 16 KiB value of any shape costs well under this (SPEC 13). */
const MAX_PARSE_MS = 5;
const VALUE_LENGTH = 16 * 1024;
/** The fastest of a few runs: a run slowed by a busy machine or a collection does not count. */
const RUNS = 5;
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const VALIDATORS = { etag: '"d-1"', lastModified: Date.UTC(2025, 0, 2, 3, 4, 5) };

function fastestMs(parse: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    parse();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** Asserts every hostile shape of 16 KiB parses in under MAX_PARSE_MS; names the shape that did not. */
function assertLinear(header: string, parse: (value: string) => unknown): void {
  for (const [shape, value] of hostileShapes(VALUE_LENGTH)) {
    const ms = fastestMs(() => parse(value));
    assert.ok(ms < MAX_PARSE_MS, `${header}: "${shape}" took ${ms.toFixed(2)} ms at 16 KiB`);
  }
}

describe('static header parsing time', () => {
  it('parses If-None-Match ", <16 KiB of spaces> x" in well under 5 ms', () => {
    const value = `,${' '.repeat(VALUE_LENGTH - 2)}x`;
    const ms = fastestMs(() => parseEntityTagList(value));
    assert.ok(ms < MAX_PARSE_MS, `${ms.toFixed(2)} ms`);
    assert.equal(parseEntityTagList(value), undefined, 'malformed');
  });

  it('parses every hostile entity-tag list of 16 KiB in well under 5 ms', () => assertLinear('entity-tag list', parseEntityTagList));

  it('evaluates If-Match, If-None-Match and both dates of 16 KiB in well under 5 ms', () =>
    assertLinear('preconditions', (value) => {
      evaluatePreconditions({ ifMatch: value, ifNoneMatch: value }, VALIDATORS, NOW);
      evaluatePreconditions({ ifUnmodifiedSince: value, ifModifiedSince: value }, VALIDATORS, NOW);
    }));

  it('evaluates If-Range of 16 KiB in well under 5 ms, tag- or date-shaped', () =>
    assertLinear('If-Range', (value) => {
      ifRangeHolds(value, VALIDATORS, NOW);
      ifRangeHolds(`W/${value}`, VALIDATORS, NOW);
    }));

  it('decides a Range of 16 KiB in well under 5 ms', () =>
    assertLinear('Range', (value) => {
      decideRange(value, 1000);
      decideRange(`bytes=${value}`, 1000);
    }));

  it('parses an HTTP-date of 16 KiB in well under 5 ms', () => assertLinear('HTTP-date', (value) => parseHttpDate(value, NOW)));
});

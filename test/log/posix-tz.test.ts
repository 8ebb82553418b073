import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePosixTz, type OffsetAt } from '../../src/log/posix-tz.js';

const at = (iso: string) => Date.parse(iso) / 1000;

/** The rule of a string known to parse. */
function rule(text: string): OffsetAt {
  const offsets = parsePosixTz(text);
  assert.ok(offsets, `${text} did not parse`);
  return offsets;
}

describe('parsePosixTz', () => {
  it('reads Madrid\'s rule: +02:00 from 01:00 UTC on the last Sunday of March to 01:00 UTC on the last Sunday of October', () => {
    const madrid = rule('CET-1CEST,M3.5.0,M10.5.0/3');
    assert.equal(madrid(at('2026-03-29T00:59:59Z')), 3600);
    assert.equal(madrid(at('2026-03-29T01:00:00Z')), 7200);
    assert.equal(madrid(at('2026-10-25T00:59:59Z')), 7200);
    assert.equal(madrid(at('2026-10-25T01:00:00Z')), 3600);
    assert.equal(madrid(at('2027-03-28T01:00:00Z')), 7200, 'the last Sunday of March 2027 is the 28th');
  });

  it('reads a southern zone, whose daylight time spans the new year (Sydney)', () => {
    const sydney = rule('AEST-10AEDT,M10.1.0,M4.1.0/3');
    assert.equal(sydney(at('2026-01-15T00:00:00Z')), 11 * 3600);
    assert.equal(sydney(at('2026-04-04T15:59:59Z')), 11 * 3600);
    assert.equal(sydney(at('2026-04-04T16:00:00Z')), 10 * 3600);
    assert.equal(sydney(at('2026-10-03T15:59:59Z')), 10 * 3600);
    assert.equal(sydney(at('2026-10-03T16:00:00Z')), 11 * 3600);
  });

  it('reads a winter offset below the summer one (Dublin: IST is standard, GMT the "daylight" time)', () => {
    const dublin = rule('IST-1GMT0,M10.5.0,M3.5.0/1');
    assert.equal(dublin(at('2026-07-01T12:00:00Z')), 3600);
    assert.equal(dublin(at('2026-12-01T12:00:00Z')), 0);
    assert.equal(dublin(at('2026-03-29T00:59:59Z')), 0);
    assert.equal(dublin(at('2026-03-29T01:00:00Z')), 3600);
  });

  it('reads quoted names and change times past 24 h (Santiago: 24:00 on the first Saturday)', () => {
    const santiago = rule('<-04>4<-03>,M9.1.6/24,M4.1.6/24');
    // First Saturday of September 2026 is the 5th; 24:00 local (-04) is 04:00 UTC on the 6th.
    assert.equal(santiago(at('2026-09-06T03:59:59Z')), -4 * 3600);
    assert.equal(santiago(at('2026-09-06T04:00:00Z')), -3 * 3600);
    // First Saturday of April 2026 is the 4th; 24:00 local (-03) is 03:00 UTC on the 5th.
    assert.equal(santiago(at('2026-04-05T02:59:59Z')), -3 * 3600);
    assert.equal(santiago(at('2026-04-05T03:00:00Z')), -4 * 3600);
  });

  it('reads negative change times (Nuuk: -01:00 on the last Saturday night)', () => {
    const nuuk = rule('<-02>2<-01>,M3.5.0/-1,M10.5.0/0');
    // The last Sunday of March 2026 is the 29th; -1:00 local (-02) is 01:00 UTC that day.
    assert.equal(nuuk(at('2026-03-29T00:59:59Z')), -2 * 3600);
    assert.equal(nuuk(at('2026-03-29T01:00:00Z')), -1 * 3600);
  });

  it('keeps daylight time all year when a year\'s end meets the next one\'s start (J365/25)', () => {
    const always = rule('EST5EDT,0/0,J365/25');
    assert.equal(always(at('2026-01-01T05:00:00Z')), -4 * 3600);
    assert.equal(always(at('2026-07-01T00:00:00Z')), -4 * 3600);
    assert.equal(always(at('2026-12-31T23:59:59Z')), -4 * 3600);
  });

  it('counts J days without 29 February and plain days with it', () => {
    // J60 is 1 March; day 59 is 29 February in a leap year (2028).
    const julian = rule('AAA0BBB,J60/0,J300/0');
    assert.equal(julian(at('2028-02-29T23:59:59Z')), 0);
    assert.equal(julian(at('2028-03-01T00:00:00Z')), 3600);
    const zeroBased = rule('AAA0BBB,59/0,300/0');
    assert.equal(zeroBased(at('2028-02-28T23:59:59Z')), 0);
    assert.equal(zeroBased(at('2028-02-29T00:00:00Z')), 3600);
  });

  it('reads a fixed offset with minutes (<+0530>-5:30)', () => {
    assert.equal(rule('<+0530>-5:30')(at('2026-06-01T00:00:00Z')), 5.5 * 3600);
    assert.equal(rule('UTC0')(at('2026-06-01T00:00:00Z')), 0);
  });

  it('refuses what it cannot read rather than guessing', () => {
    for (const text of ['', 'CET', 'CE-1', 'CET-1CEST', 'CET-1CEST,M3.5.0', 'CET-1CEST,M13.5.0,M10.5.0', 'CET-1CEST,M3.6.0,M10.5.0', 'CET-1CEST,M3.5.0,M10.5.0/3x', '<+03-3']) {
      assert.equal(parsePosixTz(text), undefined, JSON.stringify(text));
    }
  });
});

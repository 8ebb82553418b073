import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { intlOffsets, ZonedTime } from '../../src/log/zoned-time.js';

/** Instants around each zone's changes of 2026 (and one far future), a second either side. */
const CASES: Record<string, readonly string[]> = {
  'Europe/Madrid': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z', '2038-03-28T01:00:00Z', '2026-11-22T23:30:00.250Z'],
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
  'Australia/Sydney': ['2026-04-04T16:00:00Z', '2026-10-03T16:00:00Z'],
  'America/Santiago': ['2026-04-05T03:00:00Z', '2026-09-06T04:00:00Z'],
  'Pacific/Chatham': ['2026-04-04T14:00:00Z', '2026-09-26T14:00:00Z'],
  'Asia/Kolkata': ['2026-06-01T00:00:00Z'],
  'Europe/Dublin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
  UTC: ['2026-06-01T00:00:00Z'],
};

describe('ZonedTime', () => {
  it('stamps the instants around DST changes as Intl\'s wall clock does, in zones east, west, south and off the hour', () => {
    for (const [zone, instants] of Object.entries(CASES)) {
      const zoned = new ZonedTime(zone);
      const intl = new ZonedTime(zone, intlOffsets(zone));
      for (const iso of instants) {
        for (const delta of [-1000, 0, 1000]) {
          const instant = Date.parse(iso) + delta;
          const where = `${zone} at ${new Date(instant).toISOString()}`;
          assert.equal(zoned.isoTimestamp(instant), intl.isoTimestamp(instant), where);
          assert.equal(zoned.timestamp(instant), intl.timestamp(instant), where);
        }
      }
    }
  });

  it('writes Madrid\'s summer and winter offsets and cuts milliseconds', () => {
    const madrid = new ZonedTime('Europe/Madrid');
    assert.equal(madrid.isoTimestamp(Date.parse('2026-07-01T10:00:00.999Z')), '2026-07-01T12:00:00+02:00');
    assert.equal(madrid.isoTimestamp(Date.parse('2026-12-01T10:00:00Z')), '2026-12-01T11:00:00+01:00');
    assert.equal(madrid.timestamp(Date.parse('2026-03-29T01:00:00Z')), '2026-03-29 03:00:00');
    assert.equal(madrid.date(Date.parse('2026-11-22T23:30:00Z')), '2026-11-23');
  });

  it('refuses an instant no Date holds, as Intl does', () => {
    assert.throws(() => new ZonedTime('Europe/Madrid').timestamp(Number.NaN), RangeError);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { futureDated, localDate, logFileName, logFilePattern, nextMidnight, pruneList } from '../../src/log/rotation.js';

const MADRID = 'Europe/Madrid';
const iso = (ms: number) => new Date(ms).toISOString();

describe('logFileName', () => {
  it('names the file by the Madrid date, not the UTC date', () => {
    assert.equal(logFileName('prod', Date.parse('2026-11-22T23:30:00Z'), MADRID), 'prod-2026-11-23.log');
    assert.equal(logFileName('dev', Date.parse('2026-11-22T22:59:59.999Z'), MADRID), 'dev-2026-11-22.log');
  });
  it('follows the configured zone', () => {
    assert.equal(logFileName('dev', Date.parse('2026-11-22T23:30:00Z'), 'UTC'), 'dev-2026-11-22.log');
  });
});

describe('nextMidnight in Madrid', () => {
  it('gives 23:00 UTC on a winter day (24 h)', () => {
    assert.equal(iso(nextMidnight(Date.parse('2026-11-22T10:00:00Z'), MADRID)), '2026-11-22T23:00:00.000Z');
  });
  it('gives 22:00 UTC on a summer day', () => {
    assert.equal(iso(nextMidnight(Date.parse('2026-07-01T00:00:00Z'), MADRID)), '2026-07-01T22:00:00.000Z');
  });
  it('ends 2026-03-29, a 23-hour day, at 22:00 UTC', () => {
    const start = Date.parse('2026-03-28T23:00:00Z');
    assert.equal(localDate(start, MADRID), '2026-03-29');
    const end = nextMidnight(start, MADRID);
    assert.equal(iso(end), '2026-03-29T22:00:00.000Z');
    assert.equal((end - start) / 3_600_000, 23);
  });
  it('ends 2026-10-25, a 25-hour day, at 23:00 UTC', () => {
    const start = Date.parse('2026-10-24T22:00:00Z');
    assert.equal(localDate(start, MADRID), '2026-10-25');
    const end = nextMidnight(start, MADRID);
    assert.equal(iso(end), '2026-10-25T23:00:00.000Z');
    assert.equal((end - start) / 3_600_000, 25);
  });
  it('finds the same end from inside the repeated hour of 2026-10-25', () => {
    assert.equal(iso(nextMidnight(Date.parse('2026-10-25T00:30:00Z'), MADRID)), '2026-10-25T23:00:00.000Z');
    assert.equal(iso(nextMidnight(Date.parse('2026-10-25T01:30:00Z'), MADRID)), '2026-10-25T23:00:00.000Z');
  });
  it('moves to the following day when called exactly at a boundary', () => {
    assert.equal(iso(nextMidnight(Date.parse('2026-11-22T23:00:00Z'), MADRID)), '2026-11-23T23:00:00.000Z');
  });
  it('gives the boundary from one millisecond before it', () => {
    assert.equal(iso(nextMidnight(Date.parse('2026-11-22T22:59:59.999Z'), MADRID)), '2026-11-22T23:00:00.000Z');
  });
});

describe('nextMidnight where midnight does not exist', () => {
  it('gives 01:00 local, the first instant of the day, on Santiago de Chile\'s DST day', () => {
    assert.equal(iso(nextMidnight(Date.parse('2026-09-05T16:00:00Z'), 'America/Santiago')), '2026-09-06T04:00:00.000Z');
  });
});

describe('pruneList', () => {
  const files = [
    'prod-2026-01-01.log', 'prod-2026-01-03.log', 'prod-2026-01-02.log', 'prod-2026-01-04.log',
    'prod-backup.log', 'app-2026-01-01.log', 'prod-2026-01-01.log.gz', 'dev-2025-01-01.log',
    'prod-2026-1-5.log', 'xprod-2025-01-01.log', 'prod-2026-01-01.log.tmp',
  ];
  it('deletes only the oldest daily files of the env beyond the limit', () => {
    assert.deepEqual(pruneList(files, 'prod', 2), ['prod-2026-01-02.log', 'prod-2026-01-01.log']);
  });
  it('deletes nothing within the limit', () => assert.deepEqual(pruneList(files, 'prod', 10), []));
  it('never matches another env or a near name', () => {
    const pattern = logFilePattern('prod');
    for (const name of ['prod-backup.log', 'app-2026-01-01.log', 'prod-2026-01-01.log.gz', 'dev-2025-01-01.log', 'xprod-2025-01-01.log']) {
      assert.equal(pattern.test(name), false, name);
    }
  });
});

describe('pruneList with the file being written', () => {
  const names = ['prod-2026-11-20.log', 'prod-2026-11-21.log', 'prod-2026-11-22.log', 'prod-2030-01-01.log', 'prod-2030-01-02.log'];
  it('never lists the file of the date being written, even below later-dated files', () => {
    assert.deepEqual(pruneList(names, 'prod', 2, '2026-11-22'), ['prod-2030-01-01.log', 'prod-2026-11-21.log', 'prod-2026-11-20.log']);
  });
  it('keeps the file being written alone with LOG_MAX_FILES=1', () => {
    assert.deepEqual(pruneList(names, 'prod', 1, '2026-11-22'), ['prod-2030-01-02.log', 'prod-2030-01-01.log', 'prod-2026-11-21.log', 'prod-2026-11-20.log']);
  });
});

describe('futureDated', () => {
  it('lists the env\'s daily files dated after today, oldest first, and nothing else', () => {
    const names = ['prod-2030-01-02.log', 'prod-2026-11-22.log', 'prod-2030-01-01.log', 'dev-2031-01-01.log', 'prod-2030-01-01.log.gz'];
    assert.deepEqual(futureDated(names, 'prod', '2026-11-22'), ['prod-2030-01-01.log', 'prod-2030-01-02.log']);
  });
});

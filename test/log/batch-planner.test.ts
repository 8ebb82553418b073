import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BatchPlanner, type PlannerSettings } from '../../src/log/batch-planner.js';
import { ZonedTime } from '../../src/log/zoned-time.js';

const DIR = '/logs';
const NOV_22 = Date.parse('2026-11-22T10:00:00Z'); // 11:00 in Madrid
/** Madrid midnight between the 22nd and the 23rd of November (UTC+1). */
const MIDNIGHT_23 = Date.parse('2026-11-22T23:00:00Z');
const RETRY_MS = 30_000;

function planner(settings: Partial<PlannerSettings> = {}) {
  return new BatchPlanner({
    dir: DIR,
    kind: { stem: 'test', what: 'log', notice: (_instant, message) => `! ${message}\n` },
    zoned: new ZonedTime('Europe/Madrid'),
    maxBytes: 1000,
    maxQueuedBytes: 1000,
    ...settings,
  });
}
/** A 10-byte line. */
const line = (tag: string) => `line ${tag.padEnd(4)}\n`;
/** The file of `date` as the shell would find it, `size` bytes long. */
const file = (size: number, date = '2026-11-22') => ({ path: join(DIR, `test-${date}.log`), size });
const enqueue = (p: BatchPlanner, instant: number, tag: string) => p.enqueue(instant, line(tag), 10);

describe('BatchPlanner.retryDelay', () => {
  it('waits retryMs when the latest line\'s day ends later', () => {
    const p = planner();
    enqueue(p, NOV_22, 'a');
    assert.equal(p.retryDelay(NOV_22, RETRY_MS), RETRY_MS);
  });

  it('waits until Madrid midnight when it comes sooner, to the millisecond', () => {
    const p = planner();
    enqueue(p, MIDNIGHT_23 - 1, 'a');
    assert.equal(p.retryDelay(MIDNIGHT_23 - 1, RETRY_MS), 1);
    assert.equal(p.retryDelay(MIDNIGHT_23 - RETRY_MS, RETRY_MS), RETRY_MS);
    assert.equal(p.retryDelay(MIDNIGHT_23 - RETRY_MS + 1, RETRY_MS), RETRY_MS - 1);
  });

  it('waits retryMs again once the latest line\'s day is over, never nothing (no busy retries of a failing disk)', () => {
    const p = planner();
    enqueue(p, MIDNIGHT_23 - 1, 'a');
    assert.equal(p.retryDelay(MIDNIGHT_23, RETRY_MS), RETRY_MS);
    assert.equal(p.retryDelay(MIDNIGHT_23 + 5_000, RETRY_MS), RETRY_MS);
  });

  it('waits retryMs before any date was asked for', () => {
    assert.equal(planner().retryDelay(MIDNIGHT_23 - 1, RETRY_MS), RETRY_MS);
  });

  it('finds the midnight that ends Madrid\'s 23-hour 2026-03-29 and its 25-hour 2026-10-25', () => {
    const spring = planner();
    enqueue(spring, Date.parse('2026-03-29T21:59:59Z'), 'a'); // 23:59:59 CEST
    assert.equal(spring.retryDelay(Date.parse('2026-03-29T21:59:59Z'), RETRY_MS), 1000);
    const autumn = planner();
    enqueue(autumn, Date.parse('2026-10-25T22:59:59Z'), 'a'); // 23:59:59 CET
    assert.equal(autumn.retryDelay(Date.parse('2026-10-25T22:59:59Z'), RETRY_MS), 1000);
  });
});

describe('BatchPlanner batches', () => {
  it('takes one date\'s lines per batch, in order, each naming its day\'s file', () => {
    const p = planner();
    enqueue(p, MIDNIGHT_23 - 1, 'a');
    enqueue(p, MIDNIGHT_23 - 1, 'b');
    enqueue(p, MIDNIGHT_23, 'c');
    const first = p.takeBatch();
    assert.deepEqual([first.date, p.pathOf(first.date), first.lines.map((l) => l.text)], ['2026-11-22', join(DIR, 'test-2026-11-22.log'), [line('a'), line('b')]]);
    const second = p.takeBatch();
    assert.deepEqual([second.date, p.pathOf(second.date), second.lines.map((l) => l.text)], ['2026-11-23', join(DIR, 'test-2026-11-23.log'), [line('c')]]);
    assert.equal(p.queuedLines, 0);
  });

  it('books the whole lines of a write cut part-way, and starts the retry on a new line', () => {
    const p = planner();
    for (const tag of ['a', 'b', 'c']) enqueue(p, NOV_22, tag);
    const cut = p.plan(p.takeBatch(), file(0));
    assert.equal(cut.data.toString(), line('a') + line('b') + line('c'));
    assert.equal(p.settle(cut, 15), undefined); // 'a' whole, 'b' cut after 5 bytes
    assert.deepEqual(p.lineCounts(), { written: 1, dropped: 0 });
    const retry = p.plan(p.takeBatch(), file(15));
    assert.equal(retry.data.toString(), `\n${line('b')}${line('c')}`);
    p.settle(retry, retry.data.byteLength);
    assert.deepEqual(p.lineCounts(), { written: 3, dropped: 0 });
    assert.equal(p.queuedLines, 0);
  });

  it('keeps the lines under the day\'s cap, counts the rest, and opens the next day\'s file with how many', () => {
    const p = planner({ maxBytes: 25 });
    for (const tag of ['a', 'b', 'c']) enqueue(p, NOV_22, tag);
    enqueue(p, MIDNIGHT_23, 'd');
    const full = p.plan(p.takeBatch(), file(0));
    assert.equal(full.kept, 2);
    const announcement = p.settle(full, full.data.byteLength);
    assert.equal(announcement, `log: ${join(DIR, 'test-2026-11-22.log')} reached LOG_MAX_BYTES (25 bytes); further lines of 2026-11-22 are counted, not written`);
    assert.deepEqual(p.lineCounts(), { written: 2, dropped: 1 });
    const next = p.plan(p.takeBatch(), file(0, '2026-11-23'));
    assert.equal(next.data.toString(), `! 1 log lines dropped on 2026-11-22: the day's file reached LOG_MAX_BYTES (25 bytes)\n${line('d')}`);
    assert.equal(p.settle(next, next.data.byteLength), undefined);
    assert.equal(p.takeCapNotice(), undefined, 'the notice was told in the file');
  });

  it('counts the lines a full queue refuses, and tells how many before the next line it takes', () => {
    const p = planner({ maxQueuedBytes: 20 });
    for (const tag of ['a', 'b', 'c']) enqueue(p, NOV_22, tag);
    assert.deepEqual(p.lineCounts(), { written: 0, dropped: 1 });
    const batch = p.plan(p.takeBatch(), file(0));
    p.settle(batch, batch.data.byteLength);
    enqueue(p, NOV_22, 'd');
    assert.deepEqual(p.takeBatch().lines.map((l) => l.text), ['! 1 log lines dropped: the log queue was full\n', line('d')]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineQueue, linesUnderCap, writtenPart, type QueuedLine } from '../../src/log/queue.js';

const line = (date: string, text: string): QueuedLine => ({ date, instant: 0, text, bytes: Buffer.byteLength(text) });

describe('LineQueue', () => {
  it('takes a batch of one date only, in order', () => {
    const queue = new LineQueue(1_000);
    for (const l of [line('d1', 'a\n'), line('d1', 'b\n'), line('d2', 'c\n'), line('d1', 'd\n')]) queue.push(l);
    assert.deepEqual(queue.takeBatch(1_000).map((l) => l.text), ['a\n', 'b\n']);
    assert.deepEqual(queue.takeBatch(1_000).map((l) => l.text), ['c\n']);
    assert.deepEqual(queue.takeBatch(1_000).map((l) => l.text), ['d\n']);
    assert.equal(queue.length, 0);
  });

  it('stops a batch at the byte bound but always takes one line', () => {
    const queue = new LineQueue(1_000);
    for (const l of [line('d', 'x'.repeat(9) + '\n'), line('d', 'y\n'), line('d', 'z\n')]) queue.push(l);
    assert.deepEqual(queue.takeBatch(5).map((l) => l.bytes), [10]);
    assert.deepEqual(queue.takeBatch(5).map((l) => l.text), ['y\n', 'z\n']);
  });

  it('frees room as batches are taken and takes it again when one is put back', () => {
    const queue = new LineQueue(4);
    queue.push(line('d', 'a\n'));
    queue.push(line('d', 'b\n'));
    assert.equal(queue.fits(1), false);
    const batch = queue.takeBatch(100);
    assert.equal(queue.fits(4), true);
    queue.push(line('d', 'c\n'));
    queue.putBack(batch);
    assert.equal(queue.fits(1), false);
    assert.deepEqual(queue.takeBatch(100).map((l) => l.text), ['a\n', 'b\n', 'c\n']);
  });
});

describe('linesUnderCap', () => {
  const batch = [line('d', 'aaaa\n'), line('d', 'bbbbbbbbb\n'), line('d', 'c\n')];
  // 5 + 10 + 2 = 17 bytes
  it('keeps every line that fits', () => assert.equal(linesUnderCap(batch, 0, 20), 3));
  it('keeps a line that ends exactly at the cap', () => assert.equal(linesUnderCap(batch, 3, 20), 3));
  it('drops the first line that would cross the cap and every line after it, even a short one', () => {
    assert.equal(linesUnderCap(batch, 6, 20), 1);
  });
  it('keeps nothing in a file already at the cap', () => assert.equal(linesUnderCap(batch, 20, 20), 0));
});

describe('writtenPart', () => {
  const lines = [line('2026-01-01', 'x'.repeat(9) + '\n'), line('2026-01-01', 'x'.repeat(9) + '\n'), line('2026-01-01', 'x'.repeat(9) + '\n')];
  it('counts nothing and cuts nothing when no byte was written', () => {
    assert.deepEqual(writtenPart(lines, 5, 0), { prefixWritten: false, lines: 0, cut: false });
  });
  it('cuts the prefix when the write stopped inside it', () => {
    assert.deepEqual(writtenPart(lines, 5, 3), { prefixWritten: false, lines: 0, cut: true });
  });
  it('counts the whole lines and cuts the one the write stopped inside', () => {
    assert.deepEqual(writtenPart(lines, 5, 5 + 10 + 4), { prefixWritten: true, lines: 1, cut: true });
  });
  it('cuts nothing when the write stopped at the end of a line', () => {
    assert.deepEqual(writtenPart(lines, 0, 20), { prefixWritten: true, lines: 2, cut: false });
  });
});

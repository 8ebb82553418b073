import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFileLogger } from '../../src/log/file-sink.js';
import type { WriteBytes } from '../../src/log/open-file.js';
import { eventually } from '../helpers/eventually.js';

const root = mkdtempSync(join(tmpdir(), 'log-full-disk-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

/** A disk with `room` bytes left: a write past it is short, the next fails with ENOSPC; `free()` makes room. */
function fillingDisk(room: number) {
  let left = room;
  const writeBytes: WriteBytes = async (fd, data, offset, length) => {
    if (left === 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const result = await fd.write(data, offset, Math.min(length, left));
    left -= result.bytesWritten;
    return result;
  };
  return { writeBytes, free: () => (left = Infinity) };
}

const entry = (i: number) => `entry ${String(i).padStart(3, '0')} ${'x'.repeat(40)}`;
const PREFIX = '2026-11-22 11:00:00 app.ERROR: ';

describe('the daily file sink on a disk that fills', () => {
  it('writes each entry once and whole after a write cut part-way by ENOSPC: the cut line ends, the retry starts on a new line', async () => {
    const dir = freshDir();
    // Each line is 82 bytes: 1,000 bytes cut the 13th line after 16 of its bytes.
    const disk = fillingDisk(1000);
    const warnings: string[] = [];
    const log = createFileLogger({
      dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock: () => Date.parse('2026-11-22T10:00:00Z'),
      retryMs: 50, warn: (l) => warnings.push(l), writeBytes: disk.writeBytes,
    });
    for (let i = 0; i < 40; i++) log.log('app', 'ERROR', entry(i));
    await log.flush();
    disk.free();
    // close() writes nothing while the sink waits to retry: wait for the retry to write it all.
    await eventually('all 40 entries written after the retry', () => log.lineCounts().written, (n) => n === 40);
    await log.close();
    const lines = readFileSync(join(dir, 'test-2026-11-22.log'), 'utf8').split('\n');
    const whole = Array.from({ length: 40 }, (_, i) => `${PREFIX}${entry(i)}`);
    assert.deepEqual(lines, [...whole.slice(0, 12), whole[12]!.slice(0, 1000 - 12 * 82), ...whole.slice(12), '']);
    assert.deepEqual(warnings, ['log: cannot write to ' + dir + ' (ENOSPC); the service keeps answering and retries every 0.05 s', `log: writing to ${dir} again`]);
  });

  it('writes nothing twice when the disk fills exactly at the end of a line', async () => {
    const dir = freshDir();
    const disk = fillingDisk(82 * 5);
    const warnings: string[] = [];
    const log = createFileLogger({
      dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock: () => Date.parse('2026-11-22T10:00:00Z'),
      retryMs: 50, warn: (l) => warnings.push(l), writeBytes: disk.writeBytes,
    });
    for (let i = 0; i < 10; i++) log.log('app', 'ERROR', entry(i));
    await log.flush();
    disk.free();
    await eventually('all 10 entries written after the retry', () => log.lineCounts().written, (n) => n === 10);
    await log.close();
    const text = readFileSync(join(dir, 'test-2026-11-22.log'), 'utf8');
    assert.equal(text, Array.from({ length: 10 }, (_, i) => `${PREFIX}${entry(i)}\n`).join(''));
    assert.match(warnings[0] ?? '', /\(ENOSPC\)/, 'the disk never filled');
  });
});

import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFileLogger, type FileLoggerOptions } from '../../src/log/file-sink.js';

const root = mkdtempSync(join(tmpdir(), 'log-cap-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

const CAP = 64 * 1024;
const NOV_22 = Date.parse('2026-11-22T10:00:00Z'); // 11:00 in Madrid
const NOV_23 = Date.parse('2026-11-22T23:00:00Z'); // Madrid midnight
const FILE_22 = 'test-2026-11-22.log';

function logger(dir: string, clock: () => number, warnings: string[], extra: Partial<FileLoggerOptions> = {}) {
  return createFileLogger({
    dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, maxBytes: CAP, clock, flushDelayMs: 0,
    warn: (line) => warnings.push(line), ...extra,
  });
}
const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');
/** Message `n` padded so that its line, "2026-11-22 11:00:00 app.ERROR: " and newline included, is 1 KiB. */
const kibMessage = (n: number) => `${String(n).padStart(4, '0')} ${'x'.repeat(987)}`;

describe('the daily file sink with maxBytes', () => {
  it('writes a day\'s lines up to the cap, counts the rest, and says so once on stderr', async () => {
    const dir = freshDir();
    const warnings: string[] = [];
    const log = logger(dir, () => NOV_22, warnings);
    for (let i = 0; i < 70; i++) log.log('app', 'ERROR', kibMessage(i));
    await log.flush();
    for (let i = 70; i < 100; i++) log.log('app', 'ERROR', kibMessage(i));
    await log.flush();
    const lines = read(dir, FILE_22).split('\n');
    assert.equal(statSync(join(dir, FILE_22)).size, CAP);
    assert.equal(lines.length, 65); // 64 lines of 1 KiB and the empty string after the last newline
    assert.equal(lines[63], `2026-11-22 11:00:00 app.ERROR: ${kibMessage(63)}`);
    assert.deepEqual(warnings, [
      `log: ${join(dir, FILE_22)} reached LOG_MAX_BYTES (65536 bytes); further lines of 2026-11-22 are counted, not written`,
    ]);
    await log.close();
  });

  it('opens the next day\'s file with how many lines the full day dropped', async () => {
    const dir = freshDir();
    let now = NOV_22;
    const warnings: string[] = [];
    const log = logger(dir, () => now, warnings);
    for (let i = 0; i < 100; i++) log.log('app', 'ERROR', kibMessage(i));
    await log.flush();
    now = NOV_23 + 5_000;
    log.log('app', 'INFO', 'a new day');
    await log.close();
    assert.equal(
      read(dir, 'test-2026-11-23.log'),
      "2026-11-23 00:00:05 app.WARNING: 36 log lines dropped on 2026-11-22: the day's file reached LOG_MAX_BYTES (65536 bytes)\n" +
        '2026-11-23 00:00:05 app.INFO: a new day\n',
    );
    assert.equal(statSync(join(dir, FILE_22)).size, CAP);
    assert.equal(warnings.length, 1, 'the notice went to the file, not also to stderr');
  });

  it('tells stderr how many lines were dropped when it closes before the day ends', async () => {
    const dir = freshDir();
    const warnings: string[] = [];
    const log = logger(dir, () => NOV_22, warnings);
    for (let i = 0; i < 70; i++) log.log('app', 'ERROR', kibMessage(i));
    await log.close();
    assert.equal(
      warnings[1],
      "2026-11-22 11:00:00 app.WARNING: 6 log lines dropped on 2026-11-22: the day's file reached LOG_MAX_BYTES (65536 bytes)",
    );
    assert.equal(statSync(join(dir, FILE_22)).size, CAP);
  });

  it('applies the cap and tells stderr on flushSync at exit', () => {
    const dir = freshDir();
    const warnings: string[] = [];
    const log = logger(dir, () => NOV_22, warnings);
    for (let i = 0; i < 66; i++) log.log('app', 'ERROR', kibMessage(i));
    log.flushSync();
    assert.equal(statSync(join(dir, FILE_22)).size, CAP);
    assert.deepEqual(warnings.slice(1), [
      "2026-11-22 11:00:00 app.WARNING: 2 log lines dropped on 2026-11-22: the day's file reached LOG_MAX_BYTES (65536 bytes)",
    ]);
  });

  it('counts what other processes wrote: the size at open, and again a second later', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    // Another process already wrote 60 KiB today: 4 lines of 1 KiB fit.
    writeFileSync(join(dir, FILE_22), 'o'.repeat(60 * 1024 - 1) + '\n');
    let now = NOV_22;
    const warnings: string[] = [];
    const log = logger(dir, () => now, warnings);
    log.log('app', 'ERROR', kibMessage(0));
    await log.flush();
    // It writes 2 KiB more; within the second the sink still counts 61 KiB, a second later 63 KiB.
    appendFileSync(join(dir, FILE_22), 'o'.repeat(2 * 1024 - 1) + '\n');
    now += 1_000;
    for (let i = 1; i < 5; i++) log.log('app', 'ERROR', kibMessage(i));
    await log.close();
    assert.equal(statSync(join(dir, FILE_22)).size, CAP);
    const ours = read(dir, FILE_22).split('\n').filter((l) => l.includes('app.ERROR'));
    assert.deepEqual(ours.map((l) => l.slice(31, 35)), ['0000', '0001']);
    assert.match(warnings[1]!, /: 3 log lines dropped on 2026-11-22: /);
  });

  it('writes to the day\'s file again once a full file was renamed away', async () => {
    const dir = freshDir();
    let now = NOV_22;
    const warnings: string[] = [];
    const log = logger(dir, () => now, warnings);
    for (let i = 0; i < 65; i++) log.log('app', 'ERROR', kibMessage(i));
    await log.flush();
    const { renameSync } = await import('node:fs');
    renameSync(join(dir, FILE_22), join(dir, `${FILE_22}.1`));
    now += 1_001;
    log.log('app', 'ERROR', 'room again');
    await log.flush();
    assert.equal(read(dir, FILE_22), '2026-11-22 11:00:01 app.ERROR: room again\n');
    now = NOV_23;
    log.log('app', 'INFO', 'next');
    await log.close();
    assert.match(read(dir, 'test-2026-11-23.log'), /^2026-11-23 00:00:00 app\.WARNING: 1 log lines dropped on 2026-11-22: /);
  });
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createAccessLog, type AccessLogOptions } from '../../src/log/access-log.js';
import type { AccessRecord } from '../../src/log/access-format.js';
import { createFileLogger } from '../../src/log/file-sink.js';
import { logFilePattern } from '../../src/log/rotation.js';
import { eventually } from '../helpers/eventually.js';

const root = mkdtempSync(join(tmpdir(), 'access-log-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

const NOV_22 = Date.parse('2026-11-22T10:00:00Z'); // 11:00 in Madrid
const FILE_22 = 'test-access-2026-11-22.log';

function accessLog(dir: string, clock: () => number, extra: Partial<AccessLogOptions> = {}) {
  return createAccessLog({ dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock, mask: Object.assign((text: string) => text, { trigger: undefined }), ...extra });
}

/** A request that arrived at `time`, its target naming it. */
const request = (time: number, target: string, changes: Partial<AccessRecord> = {}): AccessRecord => ({
  time, requestId: 'r1', clientIp: '192.0.2.1', method: 'GET', routedMethod: 'GET', target, protocol: 'HTTP/1.1', status: 200, bytes: 5, durationMs: 0.25,
  userAgent: 'test-agent', referer: undefined, subject: undefined, worker: 0, completed: true, ...changes,
});
const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');
const readLines = (dir: string, name: string) => read(dir, name).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the access log', () => {
  it('appends one JSON line per request to <env>-access-<date>.log', async () => {
    const dir = freshDir();
    const log = accessLog(dir, () => NOV_22 + 20);
    log.record(request(NOV_22 + 7, '/a'));
    log.record(request(NOV_22 + 9, '/b', { protocol: 'HTTP/2', status: 404, userAgent: undefined }));
    await log.close();
    assert.deepEqual(readdirSync(dir), [FILE_22]);
    assert.equal(
      read(dir, FILE_22),
      '{"time":"2026-11-22T11:00:00.007+01:00","request_id":"r1","client_ip":"192.0.2.1","method":"GET","routed_method":"GET",' +
        '"target":"/a","protocol":"HTTP/1.1","status":200,"bytes":5,"duration_ms":0.25,"user_agent":"test-agent","referer":null,"subject":null,"worker":0,"completed":true}\n' +
        '{"time":"2026-11-22T11:00:00.009+01:00","request_id":"r1","client_ip":"192.0.2.1","method":"GET","routed_method":"GET",' +
        '"target":"/b","protocol":"HTTP/2","status":404,"bytes":5,"duration_ms":0.25,"user_agent":null,"referer":null,"subject":null,"worker":0,"completed":true}\n',
    );
  });

  it('moves to the next file at Madrid midnight by the clock, a request that arrived before it keeping its time', async () => {
    const dir = freshDir();
    let now = Date.parse('2026-11-22T22:59:59.999Z');
    const log = accessLog(dir, () => now);
    log.record(request(now - 100, '/before'));
    now += 1;
    log.record(request(now - 50, '/across'));
    log.record(request(now, '/after'));
    await log.close();
    assert.deepEqual(readLines(dir, 'test-access-2026-11-22.log').map((l) => [l.target, l.time]), [['/before', '2026-11-22T23:59:59.899+01:00']]);
    assert.deepEqual(readLines(dir, 'test-access-2026-11-23.log').map((l) => [l.target, l.time]), [
      ['/across', '2026-11-22T23:59:59.950+01:00'],
      ['/after', '2026-11-23T00:00:00.000+01:00'],
    ]);
  });

  it('keeps 2026-10-25 (25 h) in one file, its times showing the offset change', async () => {
    const dir = freshDir();
    let now = 0;
    const log = accessLog(dir, () => now);
    for (const instant of ['2026-10-24T22:00:00Z', '2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-25T22:59:59Z', '2026-10-25T23:00:00Z']) {
      now = Date.parse(instant);
      log.record(request(now, instant));
    }
    await log.close();
    assert.deepEqual(readLines(dir, 'test-access-2026-10-25.log').map((l) => l.time), [
      '2026-10-25T00:00:00.000+02:00', '2026-10-25T02:30:00.000+02:00', '2026-10-25T02:30:00.000+01:00', '2026-10-25T23:59:59.000+01:00',
    ]);
    assert.deepEqual(readLines(dir, 'test-access-2026-10-26.log').map((l) => l.time), ['2026-10-26T00:00:00.000+01:00']);
  });

  it('writes synchronously what is queued when flushSync is called (the exit after SIGTERM)', () => {
    const dir = freshDir();
    const log = accessLog(dir, () => NOV_22, { flushDelayMs: 60_000 });
    log.record(request(NOV_22, '/last'));
    log.flushSync();
    assert.deepEqual(readLines(dir, FILE_22).map((l) => l.target), ['/last']);
    assert.deepEqual(log.lineCounts(), { written: 1, dropped: 0 });
  });

  it('gathers requests for its delay, and writes 1,024 gathered at once without waiting for it', async () => {
    const dir = freshDir();
    const log = accessLog(dir, () => NOV_22, { flushDelayMs: 60_000 });
    for (let i = 0; i < 1023; i++) log.record(request(NOV_22, `/r${i}`));
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.deepEqual(readdirSync(dir), [], 'written before the delay with fewer than 1,024 gathered');
    log.record(request(NOV_22, '/r1023'));
    await eventually('1,024 lines written', () => log.lineCounts().written, (n) => n >= 1024);
    const lines = readLines(dir, FILE_22);
    assert.equal(lines.length, 1024);
    assert.deepEqual([lines[0]!.target, lines[1023]!.target], ['/r0', '/r1023']);
    log.record(request(NOV_22, '/after'));
    await log.close();
    assert.equal(readLines(dir, FILE_22).at(-1)!.target, '/after');
  });
});

describe('retention of both logs', () => {
  const day = (n: number) => `2026-01-${String(n).padStart(2, '0')}`;

  it('never lets one log\'s file name match the other\'s pattern', () => {
    assert.ok(!logFilePattern('prod').test('prod-access-2026-01-01.log'));
    assert.ok(!logFilePattern('prod-access').test('prod-2026-01-01.log'));
    assert.ok(logFilePattern('prod-access').test('prod-access-2026-01-01.log'));
  });

  it('keeps the newest 10 of each kind, each log pruning only its own files', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    for (let n = 1; n <= 14; n++) {
      writeFileSync(join(dir, `test-${day(n)}.log`), 'error\n');
      writeFileSync(join(dir, `test-access-${day(n)}.log`), 'access\n');
    }
    const clock = () => Date.parse('2026-01-14T10:00:00Z');
    const access = accessLog(dir, clock);
    const afterAccess = readdirSync(dir);
    assert.equal(afterAccess.filter((n) => n.startsWith('test-access-')).length, 10);
    assert.equal(afterAccess.filter((n) => /^test-\d/.test(n)).length, 14, 'the access log deleted no error log file');
    const errors = createFileLogger({ dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock });
    const left = readdirSync(dir).sort();
    assert.deepEqual(left.filter((n) => /^test-\d/.test(n)), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => `test-${day(n)}.log`));
    assert.deepEqual(left.filter((n) => n.startsWith('test-access-')), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((n) => `test-access-${day(n)}.log`));
    await access.close();
    await errors.close();
  });

  it('prunes its own files at a new day while the error log\'s stay', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    for (let n = 1; n <= 10; n++) {
      writeFileSync(join(dir, `test-${day(n)}.log`), 'error\n');
      writeFileSync(join(dir, `test-access-${day(n)}.log`), 'access\n');
    }
    let now = Date.parse('2026-01-10T10:00:00Z');
    const log = accessLog(dir, () => now);
    log.record(request(now, '/10'));
    await log.flush();
    now = Date.parse('2026-01-11T10:00:00Z');
    log.record(request(now, '/11'));
    await log.close();
    const left = readdirSync(dir);
    assert.ok(!left.includes(`test-access-${day(1)}.log`));
    assert.ok(left.includes(`test-access-${day(11)}.log`));
    assert.equal(left.filter((n) => /^test-\d/.test(n)).length, 10);
  });
});

describe('the access log\'s bounds', () => {
  const CAP = 64 * 1024;

  it('writes the byte cap\'s notice as a JSON line at the top of the next day\'s file, and counts the lines', async () => {
    const dir = freshDir();
    let now = NOV_22;
    const warnings: string[] = [];
    const log = accessLog(dir, () => now, { maxBytes: CAP, flushDelayMs: 0, warn: (line) => warnings.push(line) });
    // Each line is about 1.1 KiB: some 60 fit under the cap, the rest are counted.
    for (let i = 0; i < 100; i++) log.record(request(now, `/${'x'.repeat(800)}`));
    await log.flush();
    const kept = readLines(dir, FILE_22).length;
    assert.ok(statSync(join(dir, FILE_22)).size <= CAP);
    assert.deepEqual(warnings, [
      `access log: ${join(dir, FILE_22)} reached LOG_MAX_BYTES (65536 bytes); further lines of 2026-11-22 are counted, not written`,
    ]);
    now = Date.parse('2026-11-22T23:00:05Z');
    log.record(request(now, '/new-day'));
    await log.close();
    const next = read(dir, 'test-access-2026-11-23.log').split('\n');
    assert.equal(
      next[0],
      `{"time":"2026-11-23T00:00:05.000+01:00","notice":"${100 - kept} access log lines dropped on 2026-11-22: the day's file reached LOG_MAX_BYTES (65536 bytes)"}`,
    );
    assert.equal((JSON.parse(next[1]!) as { target: string }).target, '/new-day');
    assert.deepEqual(log.lineCounts(), { written: kept + 1, dropped: 100 - kept });
  });

  it('writes the full queue\'s notice as a JSON line, and counts the lines it dropped', async () => {
    const parent = freshDir();
    const dir = join(parent, 'log');
    mkdirSync(parent);
    writeFileSync(dir, 'blocked'); // a file where the directory should be: nothing is written until it goes
    const log = accessLog(dir, () => NOV_22, { warn: () => {}, retryMs: 50, maxQueuedBytes: 600 });
    // Each line is about 250 bytes: two fit in 600, the other eight are dropped and counted.
    for (let i = 0; i < 10; i++) log.record(request(NOV_22, `/${i}`));
    rmSync(dir);
    // '/after' must come once the retry has emptied the queue, or it is dropped as well.
    await eventually('the two queued lines written', () => log.lineCounts().written, (n) => n === 2);
    log.record(request(NOV_22, '/after'));
    await log.close();
    const lines = readLines(dir, FILE_22);
    assert.deepEqual(lines.map((l) => l.target ?? l.notice), [
      '/0', '/1', '8 access log lines dropped: the access log queue was full', '/after',
    ]);
    assert.equal(lines[2]!.time, '2026-11-22T11:00:00.000+01:00');
    assert.deepEqual(log.lineCounts(), { written: 3, dropped: 8 });
  });

  it('counts as dropped the lines still unwritable at exit, and says so on stderr', () => {
    const parent = freshDir();
    const dir = join(parent, 'log');
    mkdirSync(parent);
    writeFileSync(dir, 'blocked');
    const warnings: string[] = [];
    const log = accessLog(dir, () => NOV_22, { warn: (line) => warnings.push(line), flushDelayMs: 60_000 });
    for (let i = 0; i < 3; i++) log.record(request(NOV_22, `/${i}`));
    log.flushSync();
    assert.deepEqual(log.lineCounts(), { written: 0, dropped: 3 });
    assert.match(warnings.at(-1)!, /^access log: 3 lines not written at exit \((EEXIST|ENOTDIR)\)$/);
  });
});

describe('the error log\'s line counts', () => {
  it('counts lines written and lines past the day\'s cap, its own notices left out', async () => {
    const dir = freshDir();
    const log = createFileLogger({
      dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, maxBytes: 64 * 1024, clock: () => NOV_22, flushDelayMs: 0, warn: () => {},
    });
    assert.deepEqual(log.lineCounts(), { written: 0, dropped: 0 });
    // "2026-11-22 11:00:00 app.ERROR: " and the newline make each line 1 KiB: 64 fit.
    for (let i = 0; i < 70; i++) log.log('app', 'ERROR', `${String(i).padStart(4, '0')} ${'x'.repeat(987)}`);
    await log.close();
    assert.deepEqual(log.lineCounts(), { written: 64, dropped: 6 });
    assert.equal(readdirSync(dir).length, 1, 'no access file beside it');
  });
});

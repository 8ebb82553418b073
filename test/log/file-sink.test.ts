import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFileLogger, type FileLoggerOptions } from '../../src/log/file-sink.js';
import type { WriteBytes } from '../../src/log/open-file.js';
import { ZonedTime } from '../../src/log/zoned-time.js';
import { eventually } from '../helpers/eventually.js';

const root = mkdtempSync(join(tmpdir(), 'log-file-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

function logger(dir: string, clock: () => number, extra: Partial<FileLoggerOptions> = {}) {
  return createFileLogger({ dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock, ...extra });
}
const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

describe('the daily file sink', () => {
  it('appends formatted lines to <env>-<date>.log', async () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'));
    log.log('request', 'ERROR', 'No route found for "GET /x"');
    log.log('app', 'ERROR', 'two\nlines');
    await log.close();
    assert.equal(
      read(dir, 'test-2026-11-22.log'),
      '2026-11-22 11:00:00 request.ERROR: No route found for "GET /x"\n2026-11-22 11:00:00 app.ERROR: two\\nlines\n',
    );
  });

  it('ends a line logged for a request with its id with requestIds, and a line logged for none as before', async () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'), { requestIds: true });
    log.log('request', 'ERROR', 'No route found for "GET /x"', '5f52574265c9409e8bd2d253e177fa6b');
    log.log('app', 'INFO', 'SIGHUP: nothing to reload');
    await log.close();
    assert.equal(
      read(dir, 'test-2026-11-22.log'),
      '2026-11-22 11:00:00 request.ERROR: No route found for "GET /x" {"request_id":"5f52574265c9409e8bd2d253e177fa6b"}\n' +
        '2026-11-22 11:00:00 app.INFO: SIGHUP: nothing to reload\n',
    );
  });

  it('writes no request id by default: the lines are the observed ones', async () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'));
    log.log('request', 'ERROR', 'No route found for "GET /x"', '5f52574265c9409e8bd2d253e177fa6b');
    await log.close();
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 11:00:00 request.ERROR: No route found for "GET /x"\n');
  });

  it('writes lines beyond ASCII as UTF-8, alone in a batch or among ASCII lines', async () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'));
    log.log('app', 'INFO', 'plain');
    log.log('app', 'INFO', 'café ✓ 😀');
    log.log('app', 'INFO', 'plain again');
    await log.flush();
    log.log('app', 'INFO', 'ñandú');
    await log.flush();
    log.log('app', 'INFO', 'only ASCII');
    await log.close();
    const expected =
      '2026-11-22 11:00:00 app.INFO: plain\n2026-11-22 11:00:00 app.INFO: café ✓ 😀\n2026-11-22 11:00:00 app.INFO: plain again\n' +
      '2026-11-22 11:00:00 app.INFO: ñandú\n2026-11-22 11:00:00 app.INFO: only ASCII\n';
    assert.deepEqual(readFileSync(join(dir, 'test-2026-11-22.log')), Buffer.from(expected, 'utf8'));
  });

  it('takes the file date and the line timestamps from the ZonedTime it is given', async () => {
    const dir = freshDir();
    // Offsets of ten hours east: 2026-11-22T20:00Z is already the 23rd there, not in Madrid.
    const zoned = new ZonedTime('Europe/Madrid', () => 10 * 3600);
    const log = logger(dir, () => Date.parse('2026-11-22T20:00:00Z'), { zoned });
    log.log('app', 'INFO', 'east');
    await log.close();
    assert.deepEqual(readdirSync(dir), ['test-2026-11-23.log']);
    assert.equal(read(dir, 'test-2026-11-23.log'), '2026-11-23 06:00:00 app.INFO: east\n');
  });

  it('writes on its own after its gathering delay, without an explicit flush', async () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'));
    log.log('app', 'INFO', 'soon');
    // Waited for rather than timed: how soon depends on the machine's load, not on the sink.
    const text = await eventually('the line in the file', () => (existsSync(join(dir, 'test-2026-11-22.log')) ? read(dir, 'test-2026-11-22.log') : ''), (t) => t !== '');
    assert.equal(text, '2026-11-22 11:00:00 app.INFO: soon\n');
    await log.close();
  });

  it('moves to the next file at Madrid midnight, losing no line', async () => {
    const dir = freshDir();
    let now = Date.parse('2026-11-22T22:59:59.998Z');
    const log = logger(dir, () => now);
    log.log('app', 'INFO', 'before');
    now += 1;
    log.log('app', 'INFO', 'last ms');
    now += 1;
    log.log('app', 'INFO', 'after');
    await log.close();
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 23:59:59 app.INFO: before\n2026-11-22 23:59:59 app.INFO: last ms\n');
    assert.equal(read(dir, 'test-2026-11-23.log'), '2026-11-23 00:00:00 app.INFO: after\n');
  });

  it('keeps 2026-03-29 (23 h) and 2026-10-25 (25 h) each in one file', async () => {
    const dir = freshDir();
    let now = 0;
    const log = logger(dir, () => now);
    for (const [instant, text] of [
      ['2026-03-28T22:59:59Z', 'a'], ['2026-03-28T23:00:00Z', 'b'], ['2026-03-29T01:30:00Z', 'c'], ['2026-03-29T21:59:59Z', 'd'],
      ['2026-03-29T22:00:00Z', 'e'], ['2026-10-24T22:00:00Z', 'f'], ['2026-10-25T00:30:00Z', 'g'], ['2026-10-25T01:30:00Z', 'h'],
      ['2026-10-25T22:59:59Z', 'i'], ['2026-10-25T23:00:00Z', 'j'],
    ] as const) {
      now = Date.parse(instant);
      log.log('app', 'INFO', text);
    }
    await log.close();
    assert.equal(read(dir, 'test-2026-03-28.log'), '2026-03-28 23:59:59 app.INFO: a\n');
    assert.equal(
      read(dir, 'test-2026-03-29.log'),
      '2026-03-29 00:00:00 app.INFO: b\n2026-03-29 03:30:00 app.INFO: c\n2026-03-29 23:59:59 app.INFO: d\n',
    );
    assert.equal(read(dir, 'test-2026-03-30.log'), '2026-03-30 00:00:00 app.INFO: e\n');
    assert.equal(
      read(dir, 'test-2026-10-25.log'),
      '2026-10-25 00:00:00 app.INFO: f\n2026-10-25 02:30:00 app.INFO: g\n2026-10-25 02:30:00 app.INFO: h\n2026-10-25 23:59:59 app.INFO: i\n',
    );
    assert.equal(read(dir, 'test-2026-10-26.log'), '2026-10-26 00:00:00 app.INFO: j\n');
  });

  it('writes to the earlier day when the clock steps back', async () => {
    const dir = freshDir();
    let now = Date.parse('2026-11-23T08:00:00Z');
    const log = logger(dir, () => now);
    log.log('app', 'INFO', 'today');
    now = Date.parse('2026-11-22T08:00:00Z');
    log.log('app', 'INFO', 'stepped back');
    await log.close();
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 09:00:00 app.INFO: stepped back\n');
    assert.equal(read(dir, 'test-2026-11-23.log'), '2026-11-23 09:00:00 app.INFO: today\n');
  });

  it('writes synchronously what is queued when flushSync is called', () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'));
    log.log('app', 'CRITICAL', 'dying');
    log.flushSync();
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 11:00:00 app.CRITICAL: dying\n');
  });

  it('writes a steady stream of lines in few large writes, not one by one', async () => {
    const dir = freshDir();
    let writes = 0;
    // A busy machine: each write takes 5 ms to come back.
    const writeBytes: WriteBytes = async (fd, data, offset, length) => {
      writes++;
      await new Promise((r) => setTimeout(r, 5));
      return fd.write(data, offset, length);
    };
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'), { writeBytes });
    // A line every millisecond or so for 300 ms: a sink that wrote whatever came in during its
    // last write would write every few lines on their own.
    const until = Date.now() + 300;
    let lines = 0;
    while (Date.now() < until) {
      log.log('request', 'ERROR', `line ${++lines}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    await log.close();
    assert.equal(read(dir, 'test-2026-11-22.log').split('\n').length - 1, lines);
    // 20 ms gathering plus 5 ms writes: about 12 writes for 300 ms (slack for a slow machine).
    assert.ok(writes <= 30, `${writes} writes for ${lines} lines`);
  });

  it('writes at flushSync the lines a write in progress had taken but not yet written, once', async () => {
    const dir = freshDir();
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'), { flushDelayMs: 0 });
    log.log('app', 'INFO', 'taken while the file opens');
    // The sink's 0 ms timer fires first: its write has taken the line and is opening the file.
    await new Promise((r) => setTimeout(r, 0));
    log.flushSync(); // what the exit after an uncaught exception does
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 11:00:00 app.INFO: taken while the file opens\n');
    await log.close(); // the interrupted write goes on and must not repeat the line
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 11:00:00 app.INFO: taken while the file opens\n');
  });
});

describe('retention', () => {
  const foreign = ['test-backup.log', 'app-2026-01-01.log', 'test-2026-01-01.log.gz', 'prod-2026-01-01.log', 'notes.txt'];

  it('keeps the newest files at start-up and never touches other files', () => {
    const dir = freshDir();
    const log0 = logger(dir, () => 0); // creates the directory
    void log0;
    for (let day = 1; day <= 12; day++) writeFileSync(join(dir, `test-2026-01-${String(day).padStart(2, '0')}.log`), 'x\n');
    for (const name of foreign) writeFileSync(join(dir, name), 'keep\n');
    logger(dir, () => Date.parse('2026-01-12T10:00:00Z'));
    const left = readdirSync(dir).sort();
    assert.deepEqual(left.filter((n) => /^test-\d/.test(n) && n.endsWith('.log')), [
      'test-2026-01-03.log', 'test-2026-01-04.log', 'test-2026-01-05.log', 'test-2026-01-06.log', 'test-2026-01-07.log',
      'test-2026-01-08.log', 'test-2026-01-09.log', 'test-2026-01-10.log', 'test-2026-01-11.log', 'test-2026-01-12.log',
    ]);
    for (const name of foreign) assert.ok(left.includes(name), `${name} was deleted`);
  });

  it('prunes again when a new day starts', async () => {
    const dir = freshDir();
    let now = Date.parse('2026-01-01T10:00:00Z');
    const log = logger(dir, () => now, { maxFiles: 3 });
    writeFileSync(join(dir, 'test-backup.log'), 'keep\n');
    for (let day = 0; day < 5; day++) {
      log.log('app', 'INFO', `day ${day}`);
      await log.flush();
      now += 86_400_000;
    }
    await log.close();
    assert.deepEqual(readdirSync(dir).sort(), ['test-2026-01-03.log', 'test-2026-01-04.log', 'test-2026-01-05.log', 'test-backup.log']);
  });
});

describe('retention after the clock once ran ahead', () => {
  it('never prunes today\'s file: all 12 lines are in it, 2 files are kept, and stderr says once which files are dated later', async () => {
    const dir = freshDir();
    logger(dir, () => 0); // creates the directory
    for (const name of ['test-2026-11-20.log', 'test-2026-11-21.log', 'test-2030-01-01.log', 'test-2030-01-02.log']) writeFileSync(join(dir, name), 'old\n');
    let now = Date.parse('2026-11-22T10:00:00Z');
    const warnings: string[] = [];
    const log = logger(dir, () => now, { maxFiles: 2, warn: (l) => warnings.push(l) });
    for (let i = 1; i <= 12; i++) {
      log.log('app', 'INFO', `line ${i}`);
      await log.flush();
      now += 500; // past the once-a-second look at the file's name
    }
    await log.close();
    const lines = read(dir, 'test-2026-11-22.log').trimEnd().split('\n');
    assert.deepEqual(lines.map((l) => l.slice(20)), Array.from({ length: 12 }, (_, i) => `app.INFO: line ${i + 1}`));
    assert.deepEqual(readdirSync(dir).sort(), ['test-2026-11-22.log', 'test-2030-01-02.log']);
    assert.deepEqual(warnings, [
      `log: 2 files in ${dir} dated after 2026-11-22 (the latest test-2030-01-02.log): was the clock ahead? Retention counts them as the newest and never deletes the file in use`,
    ]);
  });
});

describe('an unwritable log directory', () => {
  it('says so once with the reason, keeps accepting lines, and writes them once it can', async () => {
    const parent = freshDir();
    const dir = join(parent, 'log');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(parent);
    writeFileSync(dir, 'a file where the directory should be');
    const warnings: string[] = [];
    let clockReads = 0;
    const clock = () => (clockReads++, Date.parse('2026-11-22T10:00:00Z'));
    const log = logger(dir, clock, { warn: (l) => warnings.push(l), retryMs: 50 });
    log.log('app', 'ERROR', 'one');
    await eventually('the first failed write reported', () => warnings.length, (n) => n > 0);
    log.log('app', 'ERROR', 'two');
    // While the sink waits, only a retry reads its clock: once to pick the file, once more to plan
    // the next retry after failing again. Two reads: a second failure has happened, unreported.
    const readsBefore = clockReads;
    await eventually('a retry that failed too', () => clockReads - readsBefore, (n) => n >= 2);
    assert.equal(warnings.length, 1, warnings.join(' | '));
    assert.match(warnings[0]!, new RegExp(`^log: cannot write to ${dir} \\((EEXIST|ENOTDIR)\\); the service keeps answering and retries every 0.05 s$`));
    rmSync(dir);
    // close() writes nothing while the sink waits to retry: wait for a retry to write both.
    await eventually('both lines written', () => log.lineCounts().written, (n) => n === 2);
    await log.close();
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 11:00:00 app.ERROR: one\n2026-11-22 11:00:00 app.ERROR: two\n');
    assert.deepEqual(warnings.slice(1), [`log: writing to ${dir} again`]);
  });

  it('bounds the queue, counts what it drops and says how many', async () => {
    const parent = freshDir();
    const dir = join(parent, 'log');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(parent);
    writeFileSync(dir, 'blocked');
    const log = logger(dir, () => Date.parse('2026-11-22T10:00:00Z'), { warn: () => {}, retryMs: 50, maxQueuedBytes: 200 });
    // Each line is 79 bytes: two fit in 200, the other eight are dropped and counted.
    for (let i = 0; i < 10; i++) log.log('app', 'ERROR', `line ${i} ${'x'.repeat(40)}`);
    rmSync(dir);
    // 'after' must come once the retry has emptied the queue, or it is dropped as well.
    await eventually('the two queued lines written', () => log.lineCounts().written, (n) => n === 2);
    log.log('app', 'ERROR', 'after');
    await log.close();
    const lines = read(dir, 'test-2026-11-22.log').trimEnd().split('\n');
    assert.deepEqual(lines.map((l) => l.slice(20, 40)), [
      'app.ERROR: line 0 xx', 'app.ERROR: line 1 xx', 'app.WARNING: 8 log l', 'app.ERROR: after',
    ]);
    assert.equal(lines[2], '2026-11-22 11:00:00 app.WARNING: 8 log lines dropped: the log queue was full');
  });
});

describe('two processes on one file', () => {
  it('interleaves whole lines only', async () => {
    const dir = freshDir();
    const run = (tag: string) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/log-writer.ts', dir, tag, '1500'], { stdio: 'inherit' });
      return once(child, 'exit');
    };
    const [[a], [b]] = await Promise.all([run('A'), run('B')]);
    assert.equal(a, 0);
    assert.equal(b, 0);
    const [file] = readdirSync(dir);
    assert.ok(file !== undefined && existsSync(join(dir, file)));
    const lines = read(dir, file).split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 3000);
    const whole = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d app\.INFO: ([AB]) (\d+) (A{2000}|B{2000})$/;
    const seen = { A: 0, B: 0 };
    for (const line of lines) {
      const m = whole.exec(line);
      assert.ok(m, `a torn line: ${line.slice(0, 80)}…`);
      assert.equal(m[3]![0], m[1], 'padding of another writer inside a line');
      const tag = m[1] as 'A' | 'B';
      assert.equal(Number(m[2]), seen[tag], `${tag}'s lines out of order`);
      seen[tag]++;
    }
  });
});

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFileLogger } from '../../src/log/file-sink.js';

const root = mkdtempSync(join(tmpdir(), 'log-reopen-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

const NOV_22 = Date.parse('2026-11-22T10:00:00Z'); // 11:00 in Madrid
const FILE_22 = 'test-2026-11-22.log';

function logger(dir: string, clock: () => number) {
  return createFileLogger({ dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock, flushDelayMs: 0 });
}
const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

/** A sink on a clock the test moves, with `line` already written to the day's file. */
async function sinkWithOneLine(dir: string, line: string) {
  let now = NOV_22;
  const log = logger(dir, () => now);
  log.log('app', 'ERROR', line);
  await log.flush();
  return { log, advance: (ms: number) => void (now += ms) };
}

describe('the daily file sink when its file goes away', () => {
  it('writes to a fresh file of the day\'s name after the file was deleted', async () => {
    const dir = freshDir();
    const { log, advance } = await sinkWithOneLine(dir, 'before rm');
    unlinkSync(join(dir, FILE_22));
    advance(1_001);
    log.log('app', 'ERROR', 'after rm');
    await log.flush();
    assert.equal(read(dir, FILE_22), '2026-11-22 11:00:01 app.ERROR: after rm\n');
    await log.close();
  });

  it('leaves the old lines in a renamed file and writes new ones under the day\'s name', async () => {
    const dir = freshDir();
    const { log, advance } = await sinkWithOneLine(dir, 'one');
    renameSync(join(dir, FILE_22), join(dir, `${FILE_22}.1`));
    advance(1_500);
    log.log('app', 'ERROR', 'two');
    await log.close();
    assert.equal(read(dir, `${FILE_22}.1`), '2026-11-22 11:00:00 app.ERROR: one\n');
    assert.equal(read(dir, FILE_22), '2026-11-22 11:00:01 app.ERROR: two\n');
  });

  it('looks at the name at most once a second: a line within it still goes to the renamed file', async () => {
    const dir = freshDir();
    const { log, advance } = await sinkWithOneLine(dir, 'one');
    renameSync(join(dir, FILE_22), join(dir, `${FILE_22}.1`));
    advance(999);
    log.log('app', 'ERROR', 'within the second');
    await log.flush();
    assert.equal(existsSync(join(dir, FILE_22)), false);
    advance(1);
    log.log('app', 'ERROR', 'a second later');
    await log.close();
    assert.equal(read(dir, `${FILE_22}.1`), '2026-11-22 11:00:00 app.ERROR: one\n2026-11-22 11:00:00 app.ERROR: within the second\n');
    assert.equal(read(dir, FILE_22), '2026-11-22 11:00:01 app.ERROR: a second later\n');
  });
});

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFileLogger } from '../../src/log/file-sink.js';
import type { WriteBytes } from '../../src/log/open-file.js';
import { eventually } from '../helpers/eventually.js';

const root = mkdtempSync(join(tmpdir(), 'log-retry-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

/** A disk that refuses every write with ENOSPC until `free()`. */
function fullDisk() {
  let full = true;
  const writeBytes: WriteBytes = async (fd, data, offset, length) => {
    if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return fd.write(data, offset, length);
  };
  return { writeBytes, free: () => void (full = false) };
}

const read = (dir: string, name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');

/** An hour: a retry that waited for it would not come within the test's wait. */
const RETRY_MS = 3_600_000;

describe('the daily file sink retrying after a failed write', () => {
  it('retries at Madrid midnight when it comes before retryMs: the new day\'s lines go to the new day\'s file', async () => {
    const dir = freshDir();
    const disk = fullDisk();
    // 10 ms before Madrid midnight (UTC+1 in November) by the sink's clock: the retry is due then,
    // not an hour later.
    let now = Date.parse('2026-11-22T22:59:59.990Z');
    const warnings: string[] = [];
    const log = createFileLogger({
      dir, appEnv: 'test', timeZone: 'Europe/Madrid', maxFiles: 10, clock: () => now,
      retryMs: RETRY_MS, flushDelayMs: 0, warn: (l) => warnings.push(l), writeBytes: disk.writeBytes,
    });
    log.log('app', 'ERROR', 'late on the 22nd');
    await log.flush(); // resolves once the write failed and the retry is scheduled
    assert.match(warnings[0] ?? '', /\(ENOSPC\)/, 'the write did not fail');
    // Done before the retry's timer can fire: the day changes, the disk has room again.
    now = Date.parse('2026-11-22T23:00:00.000Z');
    disk.free();
    log.log('app', 'ERROR', 'early on the 23rd');
    const written = await eventually('both lines written by the retry at midnight', () => log.lineCounts().written, (n) => n === 2);
    assert.equal(written, 2);
    await log.close();
    assert.equal(read(dir, 'test-2026-11-22.log'), '2026-11-22 23:59:59 app.ERROR: late on the 22nd\n');
    assert.equal(read(dir, 'test-2026-11-23.log'), '2026-11-23 00:00:00 app.ERROR: early on the 23rd\n');
    assert.deepEqual(warnings.slice(1), [`log: writing to ${dir} again`]);
  });
});

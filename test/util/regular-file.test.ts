import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FileRefused, readRegularFile } from '../../src/util/regular-file.js';

const root = mkdtempSync(join(tmpdir(), 'regular-file-'));
after(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const fresh = (name: string) => join(root, `${++count}-${name}`);
const READER = fileURLToPath(new URL('./read-regular-file.ts', import.meta.url));

/** What `readRegularFile(path, maxBytes)` says when a separate process calls it: a read that blocks or never ends is killed, never waited for. */
function readInChild(path: string, maxBytes: number): { signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, ['--import', 'tsx', READER, path, String(maxBytes)], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
  return { signal: child.signal, stdout: child.stdout.trim(), stderr: child.stderr };
}

/** The FileRefused `read` throws. */
function refusal(read: () => unknown): FileRefused {
  try {
    read();
  } catch (err) {
    assert.ok(err instanceof FileRefused, `not a FileRefused: ${String(err)}`);
    return err;
  }
  assert.fail('the file was read');
}

describe('readRegularFile', () => {
  it('reads a file of exactly maxBytes, with the stats of what it read', () => {
    const path = fresh('full.json');
    writeFileSync(path, 'x'.repeat(100));
    const { bytes, stats } = readRegularFile(path, 100);
    assert.equal(bytes.toString(), 'x'.repeat(100));
    assert.equal(stats.size, 100);
    assert.ok(stats.isFile());
  });

  it('refuses a file of maxBytes + 1, naming the file and the bound', () => {
    const path = fresh('over.json');
    writeFileSync(path, 'x'.repeat(101));
    const err = refusal(() => readRegularFile(path, 100));
    assert.equal(err.path, path);
    assert.equal(err.reason, 'larger than 100 bytes');
    assert.equal(err.message, `${path}: larger than 100 bytes`);
  });

  it('reads an empty file', () => {
    const path = fresh('empty');
    writeFileSync(path, '');
    assert.equal(readRegularFile(path, 100).bytes.byteLength, 0);
  });

  it('reads a file whose size says 0 up to its end (a /proc file)', () => {
    assert.match(readRegularFile('/proc/self/status', 64 * 1024).bytes.toString(), /^Name:/);
  });

  it('refuses a /proc file longer than maxBytes though its size says 0', () => {
    assert.equal(refusal(() => readRegularFile('/proc/self/status', 16)).reason, 'larger than 16 bytes');
  });

  it('follows a symbolic link to a regular file', () => {
    const target = fresh('target');
    writeFileSync(target, 'linked');
    const link = fresh('link');
    symlinkSync(target, link);
    assert.equal(readRegularFile(link, 100).bytes.toString(), 'linked');
  });

  it('refuses a directory', () => {
    const path = fresh('dir');
    mkdirSync(path);
    assert.equal(refusal(() => readRegularFile(path, 100)).reason, 'a directory, not a regular file');
  });

  it('refuses a character device (/dev/null)', () => {
    assert.equal(refusal(() => readRegularFile('/dev/null', 100)).message, '/dev/null: a character device, not a regular file');
  });

  it('lets a missing file fail as the system says (ENOENT)', () => {
    assert.throws(() => readRegularFile(fresh('missing'), 100), { code: 'ENOENT' });
  });

  it('refuses a symbolic link to /dev/zero at once, reading nothing', () => {
    const link = fresh('zero');
    symlinkSync('/dev/zero', link);
    const result = readInChild(link, 64 * 1024);
    assert.equal(result.signal, null, 'the read was killed: it did not end');
    assert.equal(result.stdout, `refused: ${link}: a character device, not a regular file`, result.stderr);
  });

  it('refuses a FIFO at once, without waiting for a writer', () => {
    const fifo = fresh('fifo');
    spawnSync('mkfifo', [fifo]);
    const result = readInChild(fifo, 64 * 1024);
    assert.equal(result.signal, null, 'the read was killed: it waited for a writer');
    assert.equal(result.stdout, `refused: ${fifo}: a FIFO, not a regular file`, result.stderr);
  });
});

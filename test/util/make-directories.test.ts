import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makeDirectories } from '../../src/util/make-directories.js';

const root = mkdtempSync(join(tmpdir(), 'make-directories-'));
after(() => rmSync(root, { recursive: true, force: true }));

// Node's own recursive mkdir never ends on these paths: a test of them must not wait for ever.
const PROMPTLY = { timeout: 10_000 };

describe('makeDirectories', () => {
  it('creates a directory and its missing parents', async () => {
    const path = join(root, 'a', 'b', 'c');
    await makeDirectories(path);
    assert.ok(statSync(path).isDirectory());
  });

  it('accepts a directory that exists, and one reached through a symbolic link', async () => {
    mkdirSync(join(root, 'there'));
    await makeDirectories(join(root, 'there'));
    symlinkSync(join(root, 'there'), join(root, 'link'));
    await makeDirectories(join(root, 'link', 'inner'));
    assert.ok(statSync(join(root, 'there', 'inner')).isDirectory());
  });

  it('refuses a path through a regular file, naming it', async () => {
    writeFileSync(join(root, 'file'), '');
    await assert.rejects(makeDirectories(join(root, 'file', 'posters')), { code: 'ENOTDIR' });
    await assert.rejects(makeDirectories(join(root, 'file')), { code: 'ENOTDIR', message: `ENOTDIR: not a directory, mkdir '${join(root, 'file')}'` });
  });

  it('fails at once under /proc/self, where nothing can be created', PROMPTLY, async () => {
    await assert.rejects(makeDirectories('/proc/self/posters'), { code: 'ENOENT', message: "ENOENT: no such file or directory, mkdir '/proc/self/posters'" });
  });

  it('fails at once for a missing directory under /proc', PROMPTLY, async () => {
    await assert.rejects(makeDirectories('/proc/nope/posters'), { code: 'ENOENT', message: "ENOENT: no such file or directory, mkdir '/proc/nope'" });
  });
});

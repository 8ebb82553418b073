import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runPosterCli } from '../../src/cli/poster.js';
import { posterFileName } from '../../src/poster/library.js';

const CLI = fileURLToPath(new URL('../../src/cli/poster.ts', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'poster-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPosterCli(argv, (l) => out.push(l), (l) => err.push(l), env);
  return { code, out, err };
}

describe('poster CLI', () => {
  it('prints usage and exits 0 for --help', async () => {
    const result = await run(['--help']);
    assert.equal(result.code, 0, 'exit code');
    assert.match(result.out.join('\n'), /^usage: poster --title T/, 'usage text');
    assert.deepEqual(result.err, [], 'nothing on stderr');
  });

  it('writes the poster under --public-dir/posters and prints its path as the last line', async () => {
    const result = await run(['--title', 'Año nuevo', '--subtitle', 'Çà et là', '--body', 'uno\\ndos', '--from', '#101010', '--to', '#202020',
      '--text-color', '#FFFFFF', '--accent-color', '#ff8800', '--quality', '80', '--public-dir', dir]);
    assert.equal(result.code, 0, `exit code, stderr: ${result.err.join('\n')}`);
    const expected = join(dir, 'posters', posterFileName({
      title: 'Año nuevo', subtitle: 'Çà et là', body: 'uno\ndos', background: { from: '#101010', to: '#202020' },
      textColor: '#ffffff', accentColor: '#ff8800', quality: 80,
    }));
    assert.equal(result.out.at(-1), expected, 'path of the options as a spec (\\n in --body is a line break)');
    assert.ok(existsSync(expected), 'file written');
  });

  it('reads --spec and lets options override its members, with PUBLIC_DIR from the environment', async () => {
    const specFile = join(dir, 'spec.json');
    writeFileSync(specFile, JSON.stringify({ title: 'From the file', body: 'kept', shapes: [], background: { from: '#000000', to: '#111111', angle: 90 } }));
    const publicDir = join(dir, 'pub');
    const result = await run(['--spec', specFile, '--title', 'From the option', '--to', '#222222'], { PUBLIC_DIR: publicDir });
    assert.equal(result.code, 0, `exit code, stderr: ${result.err.join('\n')}`);
    const name = posterFileName({ title: 'From the option', body: 'kept', shapes: [], background: { from: '#000000', to: '#222222', angle: 90 } });
    assert.equal(result.out.at(-1), join(publicDir, 'posters', name), 'merged spec, env public dir');
  });

  it('exits 2 with every problem as "<pointer>: <reason>" and writes nothing', async () => {
    const result = await run(['--title', '', '--accent-color', 'orange', '--quality', '150', '--public-dir', dir]);
    assert.equal(result.code, 2, 'exit code');
    assert.deepEqual(result.err.map((l) => l.split(':')[0]), ['/title', '/accentColor', '/quality'], 'one line per problem');
    assert.match(result.err[2], /^\/quality: must be at least 1 and at most 100$/, 'quality line');
    assert.deepEqual(result.out, [], 'no path printed');
    assert.deepEqual(readdirSync(dir), [], 'nothing written');
  });

  it('exits 2 when the title is missing, reporting /title', async () => {
    const result = await run(['--public-dir', dir]);
    assert.equal(result.code, 2, 'exit code');
    assert.deepEqual(result.err, ['/title: is required'], 'problem');
  });

  it('exits 2 with usage for an unknown option or a stray argument', async () => {
    for (const argv of [['--colour', 'red'], ['--title', 'T', 'extra']]) {
      const result = await run(argv);
      assert.equal(result.code, 2, `exit code for ${argv.join(' ')}`);
      assert.match(result.err.join('\n'), /usage: poster/, `usage for ${argv.join(' ')}`);
    }
  });

  it('exits 2 for a spec file that is not a JSON object, and 1 for one that cannot be read', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[1, 2]');
    assert.equal((await run(['--spec', bad])).code, 2, 'array spec');
    writeFileSync(bad, '{ nope');
    assert.match((await run(['--spec', bad])).err[0], /is not valid JSON/, 'broken JSON');
    assert.equal((await run(['--spec', join(dir, 'missing.json')])).code, 1, 'missing file');
  });

  it('runs as a program: exit code 2 and problems on stderr for bad input', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', CLI, '--title', 'T', '--from', '#zzzzzz', '--public-dir', dir], {
      encoding: 'utf8',
    });
    assert.equal(child.status, 2, `exit status, stderr: ${child.stderr}`);
    assert.deepEqual(child.stderr.trim().split('\n'), ['/background/from: must be a colour written #rrggbb', '/background/to: is required'], 'stderr lines');
    assert.equal(child.stdout, '', 'nothing on stdout');
    assert.equal(readFileSync(CLI, 'utf8').split('\n')[0], '#!/usr/bin/env node', 'shebang on the first line');
  });
});

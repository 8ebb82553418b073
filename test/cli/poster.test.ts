import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runPosterCli, SPEC_MAX_BYTES, SPEC_MAX_DEPTH } from '../../src/cli/poster.js';
import { POSTER_BODY_LIMIT } from '../../src/poster/api.js';
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

  it('prints usage on stderr and exits 2 with no argument at all, writing nothing', async () => {
    const result = await run([], { PUBLIC_DIR: dir });
    assert.equal(result.code, 2, 'exit code');
    assert.match(result.err.join('\n'), /^usage: poster --title T/, 'usage text');
    assert.deepEqual(result.out, [], 'nothing on stdout');
    assert.deepEqual(readdirSync(dir), [], 'nothing written');
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

/** The CLI as a program, killed if it has not ended within 30 s: a hang is a failure, never a wait. */
function runProgram(argv: string[]) {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...argv], { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
  assert.equal(child.signal, null, `killed after ${(process.hrtime.bigint() - started) / 1_000_000n} ms: it did not end`);
  return { code: child.status, stdout: child.stdout, stderrLines: child.stderr.trimEnd().split('\n') };
}

/** A spec object of exactly `bytes` bytes, without a title: read and parsed, it fails on /title alone. */
const specOf = (bytes: number) => `{"body":"${'x'.repeat(bytes - 11)}"}`;

describe('poster CLI: bounded input', () => {
  it('reads a --spec of exactly SPEC_MAX_BYTES, the poster API\'s body limit (64 KiB)', async () => {
    assert.equal(SPEC_MAX_BYTES, POSTER_BODY_LIMIT);
    const spec = join(dir, 'full.json');
    writeFileSync(spec, specOf(SPEC_MAX_BYTES));
    const result = await run(['--spec', spec, '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, ['/title: is required', `/body: must be at most 1000 characters (it has ${SPEC_MAX_BYTES - 11})`], 'read and checked');
  });

  it('exits 2 for a --spec of SPEC_MAX_BYTES + 1, one line naming the file and the bound', async () => {
    const spec = join(dir, 'over.json');
    writeFileSync(spec, specOf(SPEC_MAX_BYTES + 1));
    const result = await run(['--spec', spec, '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, [`poster: --spec ${spec}: larger than 65536 bytes`]);
  });

  it('exits 2 at once for a 300 MB --spec, without reading it', () => {
    const spec = join(dir, 'huge.json');
    writeFileSync(spec, '');
    truncateSync(spec, 300 * 1024 * 1024);
    const result = runProgram(['--spec', spec, '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.stderrLines, [`poster: --spec ${spec}: larger than 65536 bytes`]);
  });

  it('exits 2 at once for --spec /dev/zero', () => {
    const result = runProgram(['--spec', '/dev/zero', '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.stderrLines, ['poster: --spec /dev/zero: a character device, not a regular file']);
  });

  it('exits 2 at once for a --spec that is a FIFO, without waiting for a writer', () => {
    const fifo = join(dir, 'spec.fifo');
    spawnSync('mkfifo', [fifo]);
    const result = runProgram(['--spec', fifo, '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.stderrLines, [`poster: --spec ${fifo}: a FIFO, not a regular file`]);
  });

  it('exits 2 for a --spec that is a link to a directory', async () => {
    const link = join(dir, 'link.json');
    symlinkSync(dir, link);
    const result = await run(['--spec', link, '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, [`poster: --spec ${link}: a directory, not a regular file`]);
  });

  it('reads a --spec nested SPEC_MAX_DEPTH (32) deep, and exits 2 for one level more', async () => {
    assert.equal(SPEC_MAX_DEPTH, 32);
    const spec = join(dir, 'deep.json');
    // The title object itself is the first level: {"title": [[...]]}.
    writeFileSync(spec, `{"title":${'['.repeat(SPEC_MAX_DEPTH - 1)}${']'.repeat(SPEC_MAX_DEPTH - 1)}}`);
    assert.deepEqual((await run(['--spec', spec, '--public-dir', dir])).err, ['/title: must be a string'], 'read and checked');
    writeFileSync(spec, `{"title":${'['.repeat(SPEC_MAX_DEPTH)}${']'.repeat(SPEC_MAX_DEPTH)}}`);
    const result = await run(['--spec', spec, '--public-dir', dir]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, [`poster: --spec ${spec} is not valid JSON: nested deeper than 32 levels`]);
  });

  for (const publicDir of ['/proc/self', '/proc/nope']) {
    it(`exits 1 at once, before drawing, for --public-dir ${publicDir} where no directory can be made`, () => {
      const result = runProgram(['--title', 'T', '--public-dir', publicDir]);
      assert.equal(result.code, 1);
      const failing = publicDir === '/proc/self' ? '/proc/self/posters' : '/proc/nope';
      assert.deepEqual(result.stderrLines, [`poster: cannot create ${publicDir}/posters: ENOENT: no such file or directory, mkdir '${failing}'`]);
      assert.equal(result.stdout, '');
    });
  }

  it('exits 1 for a --public-dir that is a regular file', async () => {
    const file = join(dir, 'file');
    writeFileSync(file, '');
    const result = await run(['--title', 'T', '--public-dir', file]);
    assert.equal(result.code, 1);
    assert.deepEqual(result.err, [`poster: cannot create ${file}/posters: ENOTDIR: not a directory, mkdir '${file}'`]);
  });
});

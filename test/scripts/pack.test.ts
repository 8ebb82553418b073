import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { after, describe, it } from 'node:test';
import { freshCheckout, ROOT } from '../helpers/checkout.js';
import { DOCUMENTS, linksIn } from '../helpers/docs.js';
import { eventually } from '../helpers/eventually.js';

/** Runs a program; its output as text. */
function run(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const options: SpawnSyncOptions = { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } };
  const result = spawnSync(program, args, options);
  return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/**
 * A consumer's scratch project, removed after the test file. jose, the one dependency, is there
 * already (a copy of ours), so `npm install --offline` needs nothing from the network.
 */
function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'consumer-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  cpSync(join(ROOT, 'node_modules', 'jose'), join(dir, 'node_modules', 'jose'), { recursive: true });
  return dir;
}

/**
 * The installed `problem-service` command, run as the systemd unit runs it (its path under
 * node_modules/.bin: it serves, SIGHUP does not end it, SIGTERM stops it with exit 0) and as
 * `npx problem-service` in a terminal (Ctrl-C, SIGINT to the whole process group, stops it).
 */
async function startsAndStops(consumer: string): Promise<void> {
  const settings = { APP_ENV: 'prod', APP_DEBUG: '0', HOST: '127.0.0.1', PORT: '0', VAR_DIR: join(consumer, 'var') };
  const start = async (program: string, args: readonly string[]) => {
    const child = spawn(program, args, { cwd: consumer, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...settings }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const url = await eventually(`${program} listening`, () => /^listening on (http:\/\/\S+)$/m.exec(stdout)?.[1] ?? stderr.slice(0, 300), (seen) => seen.startsWith('http'), 30_000);
    assert.equal((await fetch(`${url}/`)).status, 200, program);
    return { child, url, exited, stderr: () => stderr };
  };

  const direct = await start(join(consumer, 'node_modules', '.bin', 'problem-service'), []);
  direct.child.kill('SIGHUP');
  assert.equal((await fetch(`${direct.url}/`)).status, 200, 'answers after SIGHUP');
  direct.child.kill('SIGTERM');
  assert.deepEqual(await direct.exited, [0, null], direct.stderr());

  const viaNpx = await start('npx', ['--no-install', 'problem-service']);
  process.kill(-viaNpx.child.pid!, 'SIGINT');
  await viaNpx.exited;
  await eventually('the service stopped', () => fetch(`${viaNpx.url}/`).then(() => 'serving', () => 'stopped'), (state) => state === 'stopped');
}

const tarballs = (dir: string) => readdirSync(dir).filter((file) => file.endsWith('.tgz'));

describe('npm run pack', () => {
  it('makes, on a fresh clone, a package whose library and commands work once installed', { timeout: 240_000 }, async () => {
    const checkout = freshCheckout();
    const pack = run('npm', ['run', 'pack', '--silent'], checkout);
    assert.equal(pack.status, 0, pack.stderr);
    const [tarball] = tarballs(checkout);
    assert.ok(tarball, `no tarball: ${pack.stdout}`);
    assert.match(pack.stdout, new RegExp(`^${tarball.replaceAll('.', '\\.')}: \\d+ files, built from src/ by tsc\\n$`));

    // Installed as a consumer would, from the tarball alone.
    const consumer = scratchProject();
    const install = run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(checkout, tarball)], consumer);
    assert.equal(install.status, 0, install.stderr);
    const library = run(process.execPath, ['--input-type=module', '-e', "const m = await import('problem-service'); console.log(typeof m.createApp, typeof m.startServer);"], consumer);
    assert.equal(library.status, 0, library.stderr);
    assert.equal(library.stdout, 'function function\n');
    const poster = run('npx', ['--no-install', 'poster', '--help'], consumer);
    assert.equal(poster.status, 0, poster.stderr);
    assert.match(poster.stdout, /usage: poster --title/);
    const jwt = run('npx', ['--no-install', 'jwt', '--help'], consumer);
    assert.equal(jwt.status, 0, jwt.stderr);
    assert.match(jwt.stdout, /jwt generate-keypair/);
    const installed = join(consumer, 'node_modules', 'problem-service');
    assert.ok(!existsSync(join(installed, 'src')), 'the package ships src/');
    // README, SECURITY.md and docs/ ship, and a link between them lands on a file of the package.
    for (const file of DOCUMENTS) {
      assert.ok(existsSync(join(installed, file)), `the package lacks ${file}`);
      for (const { target, line } of linksIn(readFileSync(join(installed, file), 'utf8'))) {
        if (/^[a-z]+:/.test(target)) continue;
        const path = target.split('#')[0]!;
        assert.ok(path === '' || existsSync(normalize(join(installed, dirname(file), path))), `${file}:${line}: ${target} is not in the package`);
      }
    }
    await startsAndStops(consumer);
  });

  it('refuses, naming the file, when the tarball would lack what an installed package needs', { timeout: 240_000 }, () => {
    const checkout = freshCheckout();
    rmSync(join(checkout, 'bin', 'poster.mjs'));
    const pack = run('npm', ['run', 'pack', '--silent'], checkout);
    assert.equal(pack.status, 1);
    assert.match(pack.stderr, /^pack: the tarball would lack bin\/poster\.mjs: nothing was packed$/m);
    assert.deepEqual(tarballs(checkout), []);
  });
});

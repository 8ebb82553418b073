import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { send } from './helpers/http.js';

const ROOT = resolve('.');

/** Starts `npm start` with a clean environment; resolves once it prints its listening line. */
async function npmStart(options: { detached: boolean }) {
  const varDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  after(() => rmSync(varDir, { recursive: true, force: true }));
  // npm is how users start the service; the script must not depend on npm's pre-scripts,
  // which the project's .npmrc (ignore-scripts) turns off.
  const child = spawn('npm', ['start', '--silent'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, APP_ENV: 'test', PORT: '0', VAR_DIR: varDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`npm start exited before listening: ${stderr}`)));
  });
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

describe('npm start', () => {
  it('builds when needed, prints the listening line, serves, and stops on SIGTERM to its group', { timeout: 120_000 }, async () => {
    const { child, url, exited } = await npmStart({ detached: true });
    assert.equal((await send(url, 'GET', '/')).status, 200);
    process.kill(-child.pid!, 'SIGTERM'); // the whole group, as a terminal would
    await exited;
    await assert.rejects(send(url, 'GET', '/'), /ECONNREFUSED/);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`passes ${signal} sent to the npm process alone to the service, which stops and gives its exit code`, { timeout: 120_000 }, async () => {
      // A container runtime or service manager signals the one process it started: npm.
      const { child, url, exited } = await npmStart({ detached: false });
      assert.equal((await send(url, 'GET', '/')).status, 200);
      child.kill(signal);
      const [code] = await exited;
      assert.equal(code, 0);
      // No orphan keeps serving once npm is gone.
      await assert.rejects(send(url, 'GET', '/'), /ECONNREFUSED/);
    });
  }
});

describe('the jwt and poster commands', () => {
  it('work through npx right after npm ci, building dist/ on demand', { timeout: 120_000 }, async () => {
    // A fresh checkout: the sources and installed modules, no dist/.
    const checkout = mkdtempSync(join(tmpdir(), 'fresh-checkout-'));
    after(() => rmSync(checkout, { recursive: true, force: true }));
    for (const entry of ['package.json', 'package-lock.json', '.npmrc', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'bin', 'assets']) {
      cpSync(join(ROOT, entry), join(checkout, entry), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
    const npx = (...args: string[]) =>
      spawnSync('npx', ['--no-install', ...args], { cwd: checkout, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    const jwt = npx('jwt', '--help');
    assert.equal(jwt.status, 0, jwt.stderr);
    assert.match(jwt.stdout, /jwt generate-keypair/);
    assert.ok(existsSync(join(checkout, 'dist', 'cli', 'jwt.js')), 'dist/ was not built');
    assert.ok(existsSync(join(checkout, 'dist', 'bundle.js')), 'dist/ was not bundled');
    const poster = npx('poster', '--help');
    assert.equal(poster.status, 0, poster.stderr);
    assert.match(poster.stdout, /usage: poster --title/);
  });
});

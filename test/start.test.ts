import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { filesUnder, freshCheckout } from './helpers/checkout.js';
import { send } from './helpers/http.js';

/** Starts `npm start` or `npm run dev` with a clean environment; resolves once it prints its listening line. */
async function npmStart(options: { detached: boolean; script?: 'start' | 'dev' }) {
  const varDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  after(() => rmSync(varDir, { recursive: true, force: true }));
  // npm is how users start the service; the script must not depend on npm's pre-scripts,
  // which the project's .npmrc (ignore-scripts) turns off.
  const child = spawn('npm', ['run', options.script ?? 'start', '--silent'], {
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
    void exited.then(() => reject(new Error(`npm ${options.script ?? 'start'} exited before listening: ${stderr}`)));
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

describe('npm run dev', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`passes ${signal} sent to the npm process alone to the service, which stops and gives its exit code`, { timeout: 120_000 }, async () => {
      const { child, url, exited } = await npmStart({ detached: false, script: 'dev' });
      assert.equal((await send(url, 'GET', '/')).status, 200);
      child.kill(signal);
      const [code] = await exited;
      assert.equal(code, 0);
      // No orphan under PID 1 keeps serving once npm is gone.
      await assert.rejects(send(url, 'GET', '/'), /ECONNREFUSED/);
    });
  }
});

describe('the jwt and poster commands', () => {
  it('work through npx right after npm ci, building dist/ on demand with tsc alone', { timeout: 120_000 }, async () => {
    // A fresh checkout: the sources and installed modules, no dist/.
    const checkout = freshCheckout();
    const npx = (...args: string[]) =>
      spawnSync('npx', ['--no-install', ...args], { cwd: checkout, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    const jwt = npx('jwt', '--help');
    assert.equal(jwt.status, 0, jwt.stderr);
    assert.match(jwt.stdout, /jwt generate-keypair/);
    // What runs is what tsc emits, file for file: src/x.ts -> dist/x.js, its map and its types.
    const emitted = filesUnder(join(checkout, 'src')).flatMap((ts) => {
      const base = ts.slice(0, -'.ts'.length);
      return [`${base}.d.ts`, `${base}.js`, `${base}.js.map`];
    });
    assert.deepEqual(filesUnder(join(checkout, 'dist')), emitted.sort());
    const poster = npx('poster', '--help');
    assert.equal(poster.status, 0, poster.stderr);
    assert.match(poster.stdout, /usage: poster --title/);
  });
});

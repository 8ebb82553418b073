import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { send } from './helpers/http.js';

describe('npm start', () => {
  it('builds when needed, prints the listening line, serves, and stops on SIGTERM', { timeout: 120_000 }, async () => {
    const varDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    after(() => rmSync(varDir, { recursive: true, force: true }));
    // npm is how users start the service; the script must not depend on npm's pre-scripts,
    // which the project's .npmrc (ignore-scripts) turns off.
    const child = spawn('npm', ['start', '--silent'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, APP_ENV: 'test', PORT: '0', VAR_DIR: varDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const exited = once(child, 'exit');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/\S+)\n/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`npm start exited before listening: ${stderr}`)));
    });
    assert.equal((await send(url, 'GET', '/')).status, 200);
    process.kill(-child.pid!, 'SIGTERM'); // the whole group, as a terminal or service manager would
    await exited;
    await assert.rejects(send(url, 'GET', '/'), /ECONNREFUSED/);
  });
});

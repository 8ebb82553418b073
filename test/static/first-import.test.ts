import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { send } from '../helpers/http.js';

const root = mkdtempSync(join(tmpdir(), 'static-first-import-'));
/** Services still running: stopped, and their last log lines written, before their files go. */
const running: Array<() => Promise<unknown>> = [];
after(async () => {
  await Promise.all(running.map((stop) => stop()));
  rmSync(root, { recursive: true, force: true });
});

/** The descriptor limit of the service under test (`ulimit -n`), and connections enough to use it up. */
const FD_LIMIT = 64;
const HOGS = 100;

/** Runs src/server.ts with at most FD_LIMIT descriptors; resolves with its URL once it listens. */
async function startWithFewDescriptors(env: Record<string, string>) {
  const child = spawn('/bin/sh', ['-c', `ulimit -n ${FD_LIMIT} && exec "$0" "$@"`, process.execPath, '--import', 'tsx', 'src/server.ts'], {
    env: { PATH: process.env.PATH, APP_ENV: 'test', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const exited = once(child, 'exit');
  running.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    return exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      const found = /^listening on (http:\/\/\S+)\n/.exec(stdout)?.[1];
      if (found) resolve(found);
    });
    void exited.then(() => reject(new Error(`exited before listening: ${stderr}`)));
  });
  return { url, stderr: () => stderr };
}

/**
 * HOGS connections: the service takes descriptors for them until it has none left (it drops the
 * rest); then each asks for `target`, so the first static request comes while none is free.
 */
async function hogDescriptors(url: string, target: string): Promise<net.Socket[]> {
  const { hostname, port } = new URL(url);
  const sockets = Array.from({ length: HOGS }, () => net.connect(Number(port), hostname).on('error', () => {}));
  await new Promise((r) => setTimeout(r, 1_000));
  for (const socket of sockets) if (!socket.destroyed) socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
  await new Promise((r) => setTimeout(r, 1_000));
  return sockets;
}

describe('the first import of static file serving', () => {
  it('serves static files once descriptors are free again, after the first static request came while they were short', { timeout: 60_000 }, async () => {
    const publicDir = mkdtempSync(join(root, 'public-'));
    writeFileSync(join(publicDir, 'first.txt'), 'first file\n');
    const varDir = mkdtempSync(join(root, 'var-'));
    const service = await startWithFewDescriptors({ PUBLIC_DIR: publicDir, VAR_DIR: varDir });
    const sockets = await hogDescriptors(service.url, '/static/first.txt');
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => setTimeout(r, 500));
    const res = await send(service.url, 'GET', '/static/first.txt');
    assert.equal(res.status, 200, `${res.body}\n${service.stderr()}`);
    assert.equal(res.body, 'first file\n');
  });
});


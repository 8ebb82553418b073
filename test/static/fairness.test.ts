/**
 * The slots for open static files shared fairly (docs/http.md, "Limits"), measured on the real
 * program over raw sockets: connections that pipeline large files and read nothing, or read a
 * trickle, hold one slot each, a client address at most 32; a request that gets no slot within
 * 2 s is answered 503 with Retry-After, never left to hang.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runServerProgram } from '../helpers/service.js';

const MiB = 1024 * 1024;
/** The goal for another client's static request while the slots are contended. */
const ANSWERED_WITHIN_MS = 1_000;
/** Another address on the loopback interface, for a second client. */
const OTHER_ADDRESS = '127.0.0.2';

/** Opens a connection from `localAddress` that sends `text` and reads nothing until told to. */
async function nonReadingClient(port: number, text: string, localAddress = '127.0.0.1'): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  socket.pause();
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(text);
  return socket;
}

/** A GET of `path` from `localAddress` on a new connection: its status, Retry-After and time taken. */
function timedGet(port: number, path: string, localAddress = '127.0.0.1'): Promise<{ status: number; retryAfter: string | undefined; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], ms: performance.now() - started }));
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer to GET ${path} in 20 s`)));
    req.on('error', reject);
  });
}

describe('static file slots under clients that hold them', () => {
  const root = mkdtempSync(join(tmpdir(), 'static-fair-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const publicDir = join(root, 'public');
  mkdirSync(publicDir);
  // Far more than the loopback's buffers hold: an answer to a client that reads nothing stays open.
  writeFileSync(join(publicDir, 'big.bin'), Buffer.alloc(32 * MiB, 7));
  writeFileSync(join(publicDir, 'small.txt'), 'small file\n');
  const program = runServerProgram({ PUBLIC_DIR: publicDir, HOST: '0.0.0.0' });
  after(async () => {
    program.child.kill('SIGTERM');
    await program.exited;
  });
  let port = 0;
  before(async () => {
    port = Number(new URL(await program.listening).port);
  });
  const hogs: net.Socket[] = [];
  const closeHogs = () => hogs.splice(0).forEach((socket) => socket.destroy());

  it('answers another client at once while 16 connections each pipeline 16 GETs of a 32 MiB file and read nothing', { timeout: 60_000 }, async () => {
    const text = 'GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(16);
    for (let i = 0; i < 16; i++) hogs.push(await nonReadingClient(port, text));
    await sleep(500); // every hog's requests are in
    try {
      for (const path of ['/static/small.txt', '/static/big.bin']) {
        const answer = await timedGet(port, path);
        assert.equal(answer.status, 200, path);
        assert.ok(answer.ms < ANSWERED_WITHIN_MS, `${path} took ${answer.ms.toFixed(0)} ms`);
      }
    } finally {
      closeHogs();
    }
  });

  it('answers another client at once while those connections read a trickle, so that they never stall', { timeout: 60_000 }, async () => {
    const text = 'GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(16);
    for (let i = 0; i < 16; i++) hogs.push(await nonReadingClient(port, text));
    const trickle = setInterval(() => hogs.forEach((socket) => socket.read(64 * 1024)), 200);
    await sleep(600);
    try {
      const answer = await timedGet(port, '/static/small.txt');
      assert.equal(answer.status, 200);
      assert.ok(answer.ms < ANSWERED_WITHIN_MS, `took ${answer.ms.toFixed(0)} ms`);
    } finally {
      clearInterval(trickle);
      closeHogs();
    }
  });

  it('gives one client address 32 files at most: its next request gets a 503 with Retry-After after 2 s, another address a 200 at once', { timeout: 60_000 }, async () => {
    const text = 'GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n';
    for (let i = 0; i < 32; i++) hogs.push(await nonReadingClient(port, text));
    await sleep(500);
    try {
      const [refused, other] = await Promise.all([timedGet(port, '/static/small.txt'), timedGet(port, '/static/small.txt', OTHER_ADDRESS)]);
      assert.equal(other.status, 200);
      assert.ok(other.ms < ANSWERED_WITHIN_MS, `the other address waited ${other.ms.toFixed(0)} ms`);
      assert.equal(refused.status, 503);
      assert.equal(refused.retryAfter, '2');
      assert.ok(refused.ms >= 1_900 && refused.ms < 5_000, `the 503 came after ${refused.ms.toFixed(0)} ms`);
      assert.equal((await timedGet(port, '/')).status, 200, 'requests that need no file are not held up');
    } finally {
      closeHogs();
    }
    await sleep(300);
    assert.equal((await timedGet(port, '/static/small.txt')).status, 200, 'the slots come back once the hogs are gone');
  });
});

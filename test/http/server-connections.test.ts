import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { IDLE_CLOSE_GRACE_MS } from '../../src/http/connections.js';
import { statusOf } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { converse, headerOf, waitFor } from '../helpers/sockets.js';

const publicDir = mkdtempSync(join(tmpdir(), 'server-connections-'));
after(() => rmSync(publicDir, { recursive: true, force: true }));
mkdirSync(join(publicDir, 'docs'));
writeFileSync(join(publicDir, 'docs', 'hello.txt'), 'hello, half-closed world\n');

/** Writes a request, shuts the write side at once, and returns all the server sent before closing. */
async function sendHalfClosed(url: string, request: string): Promise<string> {
  const c = await converse(url);
  c.socket.end(request);
  const { how } = await c.closed;
  assert.equal(how, 'fin', `the server reset the connection after ${JSON.stringify(c.received())}`);
  return c.received();
}

describe('half-closed clients', async () => {
  const service = await startTestService({ PUBLIC_DIR: publicDir });

  it('get a static file when they shut their write side right after the request', async () => {
    const raw = await sendHalfClosed(service.url, 'GET /static/docs/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(statusOf(raw), 200);
    assert.ok(raw.endsWith('\r\n\r\nhello, half-closed world\n'), raw);
  });

  it('get the 404 of a missing static file', async () => {
    const raw = await sendHalfClosed(service.url, 'GET /static/docs/missing.txt HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(statusOf(raw), 404);
  });

  it('get the 405 of DELETE on a static file', async () => {
    const raw = await sendHalfClosed(service.url, 'DELETE /static/docs/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(statusOf(raw), 405);
  });

  it('get every answer of a keep-alive pipeline before the connection ends', async () => {
    const one = 'GET /static/docs/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n';
    const raw = await sendHalfClosed(service.url, one + one);
    assert.equal(raw.match(/^HTTP\/1\.1 200 OK/gm)?.length, 2, raw);
  });
});

describe('connection bounds', async () => {
  const timeouts = { headMs: 300, idleMs: 200, checkIntervalMs: 50 };
  const service = await startTestService({ MAX_CONNECTIONS: '3' }, { timeouts });

  it('closes a connection beyond MAX_CONNECTIONS at once, with no bytes', async () => {
    const held = await Promise.all([converse(service.url), converse(service.url), converse(service.url)]);
    const extra = await converse(service.url);
    const { afterMs } = await extra.closed;
    assert.ok(afterMs < 200, `closed after ${afterMs} ms`);
    assert.equal(extra.received(), '');
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
  });

  it('closes a socket that sends nothing after the head timeout', async () => {
    const c = await converse(service.url);
    const { afterMs } = await c.closed;
    assert.ok(afterMs >= timeouts.headMs - 20 && afterMs < timeouts.headMs + 500, `closed after ${afterMs} ms`);
  });

  it('closes a connection with a half-sent head after the head timeout, with a 408', async () => {
    const c = await converse(service.url, 'GET / HTTP/1.1\r\nHost: x\r\n');
    const { afterMs } = await c.closed;
    assert.ok(afterMs >= timeouts.headMs - 20 && afterMs < timeouts.headMs + 500, `closed after ${afterMs} ms`);
    assert.equal(statusOf(c.received()), 408);
  });

  it('closes an idle keep-alive connection after the idle timeout (and Node\'s grace)', async () => {
    const c = await converse(service.url, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const raw = await waitFor(c, /\r\n\r\n/);
    assert.equal(headerOf(raw, 'connection'), 'keep-alive');
    const { how, afterMs } = await c.closed;
    assert.equal(how, 'fin');
    const latest = timeouts.idleMs + IDLE_CLOSE_GRACE_MS + 300;
    assert.ok(afterMs >= timeouts.idleMs - 20 && afterMs < latest, `closed after ${afterMs} ms`);
  });
});

describe('a client that stops reading', async () => {
  const stallMs = 400;
  // Far more than loopback's socket buffers take, so the answer stalls while the client reads nothing.
  writeFileSync(join(publicDir, 'big.bin'), Buffer.alloc(32 * 1024 * 1024, 7));
  const service = await startTestService({ PUBLIC_DIR: publicDir }, { timeouts: { stallMs } });

  it('has its connection closed once nothing moves for the stall timeout, its answer cut', async () => {
    const { port } = new URL(service.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write('GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    // A paused socket does not see the server close it; read what is left once the stall is long past.
    await new Promise((resolve) => setTimeout(resolve, stallMs * 4));
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => {});
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
    assert.ok(received < 32 * 1024 * 1024, `received ${received} bytes: the whole answer, so the stalled connection was kept`);
    // The service still answers, and serves the same file to a client that reads.
    const raw = await sendHalfClosed(service.url, 'GET /static/docs/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(statusOf(raw), 200);
  });

  it('keeps a connection whose client reads slowly for longer than the stall timeout', async () => {
    const { port } = new URL(service.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    let closed = false;
    socket.once('close', () => (closed = true));
    socket.on('error', () => {});
    let received = 0;
    let allowance = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= allowance) socket.pause();
    });
    socket.write('GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n');
    // A MiB every half timeout: the answer keeps moving, slower than the client could take it.
    for (let step = 1; step <= 8; step++) {
      await new Promise((resolve) => setTimeout(resolve, stallMs / 2));
      allowance = step * 1024 * 1024;
      socket.resume();
    }
    await new Promise((resolve) => setTimeout(resolve, stallMs / 2));
    assert.equal(closed, false, `closed after ${received} bytes though the answer kept moving`);
    assert.ok(received >= 8 * 1024 * 1024 && received < 32 * 1024 * 1024, `received ${received} bytes`);
    socket.destroy();
  });
});

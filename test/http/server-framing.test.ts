import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeKeyPair } from '../../src/jwt/index.js';
import { statusOf } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { converse, headerOf, waitFor } from '../helpers/sockets.js';

const MIB = 1024 * 1024;

describe('CONNECT', async () => {
  const service = await startTestService();

  it('answers CONNECT / with 405 and the Allow list, logs it, and closes the connection', async () => {
    service.log.clear();
    const c = await converse(service.url, 'CONNECT / HTTP/1.1\r\nHost: x\r\n\r\n');
    const { how } = await c.closed;
    assert.equal(how, 'fin');
    const raw = c.received();
    assert.equal(statusOf(raw), 405, raw);
    assert.equal(headerOf(raw, 'allow'), 'OPTIONS, GET, HEAD');
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.ok(service.log.lines.some((l) => l.channel === 'request' && l.level === 'ERROR' && l.message.includes('CONNECT /')), JSON.stringify(service.log.lines));
  });

  it('answers a CONNECT pipelined behind a GET after the GET, and keeps serving (found by the fuzz tier)', async () => {
    const c = await converse(service.url, 'GET / HTTP/1.1\r\nHost: x\r\n\r\nCONNECT host:443 HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.closed;
    const statuses = [...c.received().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    assert.deepEqual(statuses, [200, 400]);
    const next = await converse(service.url, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await next.closed;
    assert.equal(statusOf(next.received()), 200, 'the service died');
  });

  it('answers CONNECT on an unrouted path with 404', async () => {
    const c = await converse(service.url, 'CONNECT /nowhere HTTP/1.1\r\nHost: x\r\n\r\n');
    await c.closed;
    assert.equal(statusOf(c.received()), 404);
  });

  it('answers an authority-form CONNECT target with a 400 problem', async () => {
    const c = await converse(service.url, 'CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\nAccept: application/json\r\n\r\n');
    await c.closed;
    const raw = c.received();
    assert.equal(statusOf(raw), 400, raw);
    assert.equal(headerOf(raw, 'content-type'), 'application/problem+json');
    assert.match(raw, /Invalid request target/);
  });
});

interface EarlyAnswer {
  readonly raw: string;
  readonly how: string;
  /** Body bytes the client got into the connection before it closed. */
  readonly bodyBytesWritten: number;
}

/** Sends a request head declaring a 10 MiB body, then writes the body steadily until the server closes. */
async function sendBigBody(service: TestService, head: string): Promise<EarlyAnswer> {
  const c = await converse(service.url, `${head}Content-Length: ${10 * MIB}\r\n\r\n`);
  const headBytes = c.socket.bytesWritten;
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  let written = 0;
  let open = true;
  void c.closed.then(() => (open = false));
  while (open && written < 10 * MIB) {
    if (!c.socket.write(chunk)) await new Promise((r) => setTimeout(r, 5));
    written += chunk.length;
    await new Promise((r) => setImmediate(r));
  }
  const { how } = await c.closed;
  return { raw: c.received(), how, bodyBytesWritten: c.socket.bytesWritten - headBytes };
}

describe('answers given before the body was read', async () => {
  it('say nothing more when the client then closes its side mid-body (found by the fuzz tier)', async () => {
    const service = await startTestService();
    const c = await converse(service.url, 'PATCH /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3161\r\n\r\n{f:');
    await waitFor(c, /\r\n\r\n/);
    await new Promise((r) => setTimeout(r, 50));
    c.socket.end();
    await c.closed;
    const statuses = [...c.received().matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    assert.deepEqual(statuses, [404], c.received());
  });

  const service = await startTestService();

  it('close the connection when more than 64 KiB of a declared body is unread (404)', async () => {
    const { raw, bodyBytesWritten } = await sendBigBody(service, 'POST /nowhere HTTP/1.1\r\nHost: x\r\n');
    assert.equal(statusOf(raw), 404, raw.slice(0, 200));
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.ok(bodyBytesWritten < 4 * MIB, `the client got ${bodyBytesWritten} bytes in`);
    process.stdout.write(`# body bytes the client got in after an early 404: ${bodyBytesWritten}\n`);
  });

  it('close the connection when a chunked body is not complete', async () => {
    const c = await converse(service.url, 'POST /nowhere HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n');
    const { how } = await c.closed;
    assert.equal(how, 'fin');
    assert.equal(statusOf(c.received()), 404);
    assert.equal(headerOf(c.received(), 'connection'), 'close');
  });

  it('keep the connection when the unread rest is small (Node drains it)', async () => {
    const c = await converse(service.url, 'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\n\r\n');
    await waitFor(c, /\r\n\r\n/);
    assert.equal(headerOf(c.received(), 'connection'), 'keep-alive');
    c.socket.write(Buffer.alloc(10_000, 0x61));
    c.socket.write('GET /again HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(c, /HTTP\/1\.1 404[\s\S]*HTTP\/1\.1 404/);
    c.socket.destroy();
  });

  it('close the connection after a 417 to an unknown expectation with a large body to come', async () => {
    const c = await converse(service.url, `POST /nowhere HTTP/1.1\r\nHost: x\r\nExpect: bananas\r\nContent-Length: ${10 * MIB}\r\n\r\n`);
    const { how } = await c.closed;
    assert.equal(how, 'fin');
    const raw = c.received();
    assert.equal(statusOf(raw), 417, raw);
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.equal(headerOf(raw, 'content-length'), '0');
  });

  it('keep the connection after a 417 to an unknown expectation without a body', async () => {
    const c = await converse(service.url, 'GET / HTTP/1.1\r\nHost: x\r\nExpect: bananas\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(c, /HTTP\/1\.1 417[\s\S]*HTTP\/1\.1 200/);
    assert.equal(headerOf(c.received(), 'connection'), 'keep-alive');
    c.socket.destroy();
  });

  it('keep the connection for a request without a body', async () => {
    const c = await converse(service.url, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(c, /\r\n\r\n/);
    assert.equal(headerOf(c.received(), 'connection'), 'keep-alive');
    c.socket.destroy();
  });
});

describe('an early 401 of the poster API', async () => {
  const root = mkdtempSync(join(tmpdir(), 'server-framing-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const keys = { secretKeyPath: join(root, 'private.pem'), publicKeyPath: join(root, 'public.pem') };
  writeKeyPair(keys, 'framing passphrase', false);
  const service = await startTestService({
    POSTER_API: '1',
    PUBLIC_DIR: join(root, 'public'),
    JWT_SECRET_KEY: keys.secretKeyPath,
    JWT_PUBLIC_KEY: keys.publicKeyPath,
    JWT_PASSPHRASE: 'framing passphrase',
  });

  it('closes the connection instead of reading a 10 MiB body', async () => {
    const head = 'POST /api/posters HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
    const { raw, bodyBytesWritten } = await sendBigBody(service, head);
    assert.equal(statusOf(raw), 401, raw.slice(0, 200));
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.ok(bodyBytesWritten < 4 * MIB, `the client got ${bodyBytesWritten} bytes in`);
    process.stdout.write(`# body bytes the client got in after an early 401: ${bodyBytesWritten}\n`);
  });
});

describe('a pipelined request with Expect: 100-continue (found by the fuzz tier)', async () => {
  const publicDir = mkdtempSync(join(tmpdir(), 'continue-'));
  after(() => rmSync(publicDir, { recursive: true, force: true }));
  writeFileSync(join(publicDir, 'a.txt'), 'static file\n');
  const service = await startTestService({ PUBLIC_DIR: publicDir });

  // Node queues the 100 Continue of a request whose answer waits behind an earlier one; a
  // response whose body is a Buffer (the entry point, a small static file) must not put its
  // head in front of that queued line.
  for (const [name, target, body] of [['the entry point', '/', /^<!DOCTYPE html>/], ['a static file', '/static/a.txt', /^static file\n$/]] as const) {
    it(`sends the 100 Continue, then ${name}'s head, then exactly its body`, async () => {
      const c = await converse(service.url, `GET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET ${target} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
      await c.closed;
      const raw = Buffer.from(c.received(), 'latin1');
      const firstHeadEnd = raw.indexOf('\r\n\r\n') + 4;
      const firstLength = Number(headerOf(raw.subarray(0, firstHeadEnd).toString('latin1'), 'content-length'));
      const rest = raw.subarray(firstHeadEnd + firstLength).toString('latin1');
      assert.ok(rest.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n'), JSON.stringify(rest.slice(0, 120)));
      const second = rest.slice('HTTP/1.1 100 Continue\r\n\r\n'.length);
      const headEnd = second.indexOf('\r\n\r\n') + 4;
      const length = Number(headerOf(second.slice(0, headEnd), 'content-length'));
      assert.equal(Buffer.byteLength(second.slice(headEnd), 'latin1'), length, 'bytes after the head other than its Content-Length');
      assert.match(Buffer.from(second.slice(headEnd), 'latin1').toString('utf8'), body);
    });
  }

  it('frames 48 such requests pipelined in one packet (all that one connection may have waiting): each answer a 100, a head, exactly its body', async () => {
    const one = 'GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n';
    const c = await converse(service.url, `${one.repeat(47)}${one.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`);
    await c.closed;
    let rest = Buffer.from(c.received(), 'latin1');
    let answers = 0;
    while (rest.length > 0) {
      const text = rest.toString('latin1');
      assert.ok(text.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n'), `answer ${answers + 1}: ${JSON.stringify(text.slice(0, 80))}`);
      const headStart = 'HTTP/1.1 100 Continue\r\n\r\n'.length;
      const headEnd = text.indexOf('\r\n\r\n', headStart) + 4;
      const length = Number(headerOf(text.slice(headStart, headEnd), 'content-length'));
      assert.match(text.slice(headEnd, headEnd + 15), /^<!DOCTYPE html>/);
      rest = rest.subarray(headEnd + length);
      answers++;
    }
    assert.equal(answers, 48);
  });
});

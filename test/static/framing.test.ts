import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { truncateSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startTestService } from '../helpers/service.js';

const A_TXT = 'a'.repeat(99) + '\n';
const SHRINKING_SIZE = 64 * 1024 * 1024;
const SHRUNK_SIZE = 1024 * 1024;
/** Well under the service's keep-alive timeout: a socket left open is not closed by it first. */
const CLOSE_WITHIN_MS = 3_000;

const tmp = await mkdtemp(join(tmpdir(), 'static-framing-'));
after(() => rm(tmp, { recursive: true, force: true }));
const publicDir = join(tmp, 'public');
await mkdir(publicDir);
await writeFile(join(publicDir, 'a.txt'), A_TXT);
const service = await startTestService({ PUBLIC_DIR: publicDir });
const port = Number(new URL(service.url).port);

interface ParsedResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Reads complete responses off raw bytes, framed by Content-Length as a client would: a
 * response whose promised body is not all there ends the list, and the rest is returned.
 */
function parseResponses(raw: string): { responses: ParsedResponse[]; rest: string } {
  const responses: ParsedResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = raw.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine, ...fields] = raw.slice(at, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '')?.[1]);
    if (!status) break;
    const headers: Record<string, string> = {};
    for (const field of fields) {
      const colon = field.indexOf(':');
      headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (headEnd + 4 + length > raw.length) break;
    responses.push({ status, headers, body: raw.slice(headEnd + 4, headEnd + 4 + length) });
    at = headEnd + 4 + length;
  }
  return { responses, rest: raw.slice(at) };
}

/** Writes `text` on a fresh connection and reads until the server closes it. */
function exchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.setTimeout(CLOSE_WITHIN_MS, () => socket.destroy(new Error('the connection stayed open')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

/** A POST tunnelling HEAD, then a pipelined GET / that closes the connection. */
function tunnelledHeadThenGet(target: string): string {
  return (
    `POST ${target} HTTP/1.1\r\nHost: a\r\nX-HTTP-Method: HEAD\r\nAccept: application/json\r\nContent-Length: 0\r\n\r\n` +
    'GET / HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\nConnection: close\r\n\r\n'
  );
}

/** Asserts two complete responses, the second the entry point, and nothing else on the wire. */
function assertSecondIsEntryPoint(raw: string, responses: ParsedResponse[], rest: string): void {
  assert.equal(responses.length, 2, `two complete responses in:\n${raw}`);
  assert.equal(rest, '', 'no bytes after the second response');
  const entryPoint = responses[1]!;
  assert.equal(entryPoint.status, 200, 'GET / status');
  assert.equal(entryPoint.headers['content-type'], 'application/json', 'GET / content-type');
  assert.doesNotThrow(() => JSON.parse(entryPoint.body), 'GET / body is whole JSON');
}

describe('response framing follows the method on the wire', () => {
  it('answers a HEAD tunnelled through POST on a static file with its headers, Content-Length 0 and no body', async () => {
    const raw = await exchange(tunnelledHeadThenGet('/static/a.txt'));
    const { responses, rest } = parseResponses(raw);
    assertSecondIsEntryPoint(raw, responses, rest);
    const head = responses[0]!;
    assert.equal(head.status, 200, 'status');
    assert.equal(head.headers['content-length'], '0', 'content-length');
    assert.equal(head.body, '', 'body');
    assert.equal(head.headers['content-type'], 'text/plain; charset=utf-8', 'the HEAD content-type');
    assert.match(head.headers.etag ?? '', /^"[0-9a-f]+-[0-9a-f]+"$/, 'the HEAD etag');
  });

  it('answers a HEAD tunnelled through POST on / with Content-Length 0 and no body', async () => {
    const raw = await exchange(tunnelledHeadThenGet('/'));
    const { responses, rest } = parseResponses(raw);
    assertSecondIsEntryPoint(raw, responses, rest);
    const head = responses[0]!;
    assert.equal(head.status, 200, 'status');
    assert.equal(head.headers['content-type'], 'application/json', 'content-type');
    assert.equal(head.headers['content-length'], '0', 'content-length');
    assert.equal(raw.slice(0, raw.indexOf('\r\n\r\n')).match(/\r\ncontent-length:/gi)?.length, 1, 'one content-length in the head');
    assert.equal(head.body, '', 'body');
  });

  it('answers a HEAD tunnelled through POST on an unrouted path with a 404 head, Content-Length 0 and no body', async () => {
    const raw = await exchange(tunnelledHeadThenGet('/nowhere'));
    const { responses, rest } = parseResponses(raw);
    assertSecondIsEntryPoint(raw, responses, rest);
    const head = responses[0]!;
    assert.equal(head.status, 404, 'status');
    assert.equal(head.headers['content-type'], 'application/problem+json', 'content-type');
    assert.equal(head.headers['x-robots-tag'], 'none', 'x-robots-tag');
    assert.equal(head.headers['content-length'], '0', 'content-length');
    assert.equal(head.body, '', 'body');
  });

  it('keeps Content-Length of the file for a HEAD on the wire', async () => {
    const raw = await exchange('HEAD /static/a.txt HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    assert.match(raw, /\r\ncontent-length: 100\r\n/i);
    assert.ok(raw.endsWith('\r\n\r\n'), 'no body after the head');
  });
});

describe('a static file that shrinks while it is sent', () => {
  it('destroys the connection before the promised length and logs it once', async () => {
    const file = join(publicDir, 'shrinking.bin');
    await writeFile(file, '');
    await truncate(file, SHRINKING_SIZE); // sparse: no disk blocks
    service.log.clear();
    const pipelined =
      'GET /static/shrinking.bin HTTP/1.1\r\nHost: a\r\n\r\n' + 'GET /static/a.txt HTTP/1.1\r\nHost: a\r\n\r\n';
    const { raw, closed } = await new Promise<{ raw: string; closed: boolean }>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(pipelined));
      const chunks: Buffer[] = [];
      const finish = (closed: boolean) => resolve({ raw: Buffer.concat(chunks).toString('latin1'), closed });
      socket.once('data', () => {
        // Read slowly: the file shrinks while the server still has most of it to send.
        socket.pause();
        truncateSync(file, SHRUNK_SIZE);
        setTimeout(() => socket.resume(), 50);
      });
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.setTimeout(CLOSE_WITHIN_MS, () => {
        socket.destroy();
        finish(false);
      });
      socket.on('close', () => finish(true));
      socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish(true) : reject(err)));
    });
    const headEnd = raw.indexOf('\r\n\r\n');
    assert.match(raw.slice(0, headEnd), new RegExp(`\r\ncontent-length: ${SHRINKING_SIZE}\r\n`, 'i'), 'the promised length');
    const bodyBytes = raw.length - headEnd - 4;
    assert.ok(closed, `the connection stayed open after ${bodyBytes} body bytes`);
    assert.ok(bodyBytes < SHRINKING_SIZE, `${bodyBytes} body bytes of ${SHRINKING_SIZE}`);
    assert.ok(!raw.includes('HTTP/1.1', headEnd), 'the next response landed inside the body');
    // The client may see the close a moment before the app has logged why.
    for (let i = 0; i < 40 && !service.log.lines.some((l) => l.channel === 'request'); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const requestLines = service.log.lines.filter((l) => l.channel === 'request');
    assert.equal(requestLines.length, 1, JSON.stringify(requestLines));
    assert.equal(requestLines[0]!.level, 'CRITICAL');
    assert.match(requestLines[0]!.message, new RegExp(`static file /static/shrinking\\.bin ended after \\d+ of ${SHRINKING_SIZE} bytes`));
  });
});

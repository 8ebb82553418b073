import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sendBody } from '../../src/http/response.js';
import { send, sendRaw } from '../helpers/http.js';

describe('sendBody', () => {
  // Each request names its body; bodies of one length but other UTF-8 sizes follow each other.
  const bodies: Record<string, string | Uint8Array> = {
    '/ab': 'ab',
    '/a-acute': 'aé',
    '/euro': '€€',
    '/bytes': new Uint8Array([1, 2, 3]),
  };
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((req, res) => sendBody(res, 200, ['content-type', 'text/plain; charset=UTF-8'], bodies[req.url ?? '']!, Date.now()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('gives each body its own UTF-8 length, also when the last one had the same number of characters', async () => {
    for (const [path, length, text] of [
      ['/ab', '2', 'ab'],
      ['/a-acute', '3', 'aé'],
      ['/a-acute', '3', 'aé'],
      ['/euro', '6', '€€'],
      ['/ab', '2', 'ab'],
      ['/bytes', '3', '\u0001\u0002\u0003'],
    ] as const) {
      const res = await send(base, 'GET', path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers['content-length'], length, path);
      assert.equal(res.body, text, path);
    }
  });

  it('leaves the list it is given as it was: one constant list heads every answer with one Date and one Content-Length', async () => {
    const shared = ['content-type', 'text/plain; charset=UTF-8', 'expires', 'Thu, 01 Jan 2037 00:00:00 GMT'];
    const texts: Record<string, string> = { '/two': 'ab', '/three': 'abc' };
    const constant = createServer((req, res) => sendBody(res, 200, shared, texts[req.url ?? '']!, Date.UTC(2026, 10, 25, 12)));
    await new Promise<void>((resolve) => constant.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(constant.address() as AddressInfo).port}`;
      for (const [path, length] of [['/two', '2'], ['/three', '3'], ['/two', '2']] as const) {
        const raw = await sendRaw(url, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        const lines = raw.split('\r\n\r\n')[0]!.split('\r\n');
        assert.deepEqual(lines.filter((l) => /^content-length:/i.test(l)), [`content-length: ${length}`], `${path}: ${raw}`);
        assert.deepEqual(lines.filter((l) => /^date:/i.test(l)), ['date: Wed, 25 Nov 2026 12:00:00 GMT'], `${path}: ${raw}`);
      }
      assert.equal(shared.length, 4, 'the shared list grew');
    } finally {
      await new Promise<void>((resolve) => constant.close(() => resolve()));
    }
  });
});

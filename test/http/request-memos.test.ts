/**
 * Nothing of one request's Host or Accept reaches another's answer (the app remembers the
 * representation of each Accept it has seen): each request below differs from the one before it
 * in just that header, on one service.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sendRaw, statusOf } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const service = await startTestService({ TRUSTED_HOSTS: 'a.example,b.example' });
after(() => service.stop());

async function get(headers: string): Promise<{ status: number; head: string; body: string }> {
  const text = await sendRaw(service.url, `GET / HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);
  const split = text.indexOf('\r\n\r\n');
  return { status: statusOf(text), head: text.slice(0, split).toLowerCase(), body: text.slice(split + 4) };
}

describe('each request\'s own Host', () => {
  it('links each request to its own Host, the same one again after another', async () => {
    const links = async (host: string) => JSON.parse((await get(`Host: ${host}\r\nAccept: application/json\r\n`)).body).links.doc;
    assert.equal(await links('a.example'), 'http://a.example/doc/');
    assert.equal(await links('B.EXAMPLE:8080'), 'http://b.example:8080/doc/');
    assert.equal(await links('a.example'), 'http://a.example/doc/');
  });

  it('refuses an untrusted or malformed Host right after a valid one', async () => {
    assert.equal((await get('Host: a.example\r\nAccept: application/json\r\n')).status, 200);
    assert.equal((await get('Host: c.example\r\nAccept: application/json\r\n')).status, 400);
    assert.equal((await get('Host: a.example\r\nAccept: application/json\r\n')).status, 200);
    assert.equal((await get('Host: a example\r\nAccept: application/json\r\n')).status, 400);
  });

  it('refuses the remembered Host sent twice', async () => {
    assert.equal((await get('Host: a.example\r\nAccept: application/json\r\n')).status, 200);
    assert.equal((await get('Host: a.example\r\nHost: a.example\r\nAccept: application/json\r\n')).status, 400);
  });

  it('takes the link host from an absolute-form target, not from the remembered Host', async () => {
    assert.equal((await get('Host: a.example\r\nAccept: application/json\r\n')).status, 200);
    const text = await sendRaw(service.url, 'GET http://b.example/ HTTP/1.1\r\nHost: a.example\r\nAccept: application/json\r\nConnection: close\r\n\r\n');
    assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).links.doc, 'http://b.example/doc/');
  });
});

describe('the last Accept an app remembers', () => {
  it('answers each request in the representation its own Accept asks for', async () => {
    const type = async (accept: string) => /content-type: ([^\r\n;]+)/.exec((await get(`Host: a.example\r\nAccept: ${accept}\r\n`)).head)?.[1];
    assert.equal(await type('application/json'), 'application/json');
    assert.equal(await type('text/html'), 'text/html');
    assert.equal(await type('text/html'), 'text/html');
    assert.equal(await type('application/json'), 'application/json');
  });
});

describe('request ids cut from a batch', () => {
  it('gives 200 requests in a row 200 distinct ids of 32 hex digits', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const id = /x-request-id: ([^\r\n]+)/.exec((await get('Host: a.example\r\nAccept: application/json\r\n')).head)?.[1] ?? '';
      assert.match(id, /^[0-9a-f]{32}$/);
      ids.add(id);
    }
    assert.equal(ids.size, 200);
  });
});

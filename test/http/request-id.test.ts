import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequestIdSource, isValidRequestId, MAX_REQUEST_ID_LENGTH, requestIdOf } from '../../src/http/request-id.js';
import { send, sendRaw } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

/** A made id: 32 random hex digits. */
const MADE = /^[0-9a-f]{32}$/;

describe('request ids', () => {
  it('keeps a trusted proxy\'s plain token of at most 128 characters, and nothing else', () => {
    const newId = createRequestIdSource();
    assert.equal(requestIdOf('lb-7f3a.9_x', true, newId), 'lb-7f3a.9_x');
    assert.equal(requestIdOf('a'.repeat(MAX_REQUEST_ID_LENGTH), true, newId), 'a'.repeat(MAX_REQUEST_ID_LENGTH));
    assert.match(requestIdOf('a'.repeat(MAX_REQUEST_ID_LENGTH + 1), true, newId), MADE);
    assert.match(requestIdOf('lb-7f3a', false, newId), MADE, 'an untrusted client cannot choose its id');
    for (const bad of ['', 'a b', 'a\nb', 'a,b', 'é', 'a"b', '../x']) {
      assert.equal(isValidRequestId(bad), false, JSON.stringify(bad));
      assert.match(requestIdOf(bad, true, newId), MADE);
    }
  });

  it('gives every request its own, nothing in it shared with the others', () => {
    const newId = createRequestIdSource();
    const ids = new Set(Array.from({ length: 1000 }, () => requestIdOf(undefined, true, newId)));
    assert.equal(ids.size, 1000);
    const fixed = createRequestIdSource(() => 0.5);
    assert.equal(fixed(), '80000000'.repeat(4));
    // Every digit written, leading zeros kept, the largest draw all f.
    const draws = [1 / 2 ** 32, 0x0a0b0c0d / 2 ** 32, 1 - 2 ** -53, 0];
    assert.equal(createRequestIdSource(() => draws.shift()!)(), '000000010a0b0c0dffffffff00000000');
    // Past one batch of ids, each id still holds its own four draws, in the order drawn.
    let draw = 0;
    const counting = createRequestIdSource(() => ++draw / 2 ** 32);
    const hex8 = (n: number) => n.toString(16).padStart(8, '0');
    for (let i = 0; i < 150; i++) assert.equal(counting(), [1, 2, 3, 4].map((k) => hex8(4 * i + k)).join(''), `id ${i}`);
    // No part common to one source's ids: neither a count nor an instance can be read from them.
    const [a, b] = [newId(), newId()];
    assert.ok([0, 8, 16, 24].every((at) => a.slice(at, at + 8) !== b.slice(at, at + 8)), `${a} ${b}`);
  });
});

describe('X-Request-Id on every answer', async () => {
  const direct = await startTestService();
  const behindProxy = await startTestService({ TRUSTED_PROXIES: '127.0.0.1' });

  it('is generated for a client that is no trusted proxy, whatever it sends', async () => {
    for (const [method, path] of [['GET', '/'], ['HEAD', '/'], ['OPTIONS', '/'], ['GET', '/nowhere'], ['DELETE', '/'], ['GET', '/static/missing.txt']] as const) {
      const res = await send(direct.url, method, path, { 'x-request-id': 'chosen-by-client' });
      assert.match(String(res.headers['x-request-id']), MADE, `${method} ${path}`);
    }
  });

  it('is the trusted proxy\'s when valid, a new one when not', async () => {
    const kept = await send(behindProxy.url, 'GET', '/nowhere', { 'x-request-id': 'edge-42.a_b' });
    assert.equal(kept.headers['x-request-id'], 'edge-42.a_b');
    const tooLong = await send(behindProxy.url, 'GET', '/', { 'x-request-id': 'x'.repeat(129) });
    assert.match(String(tooLong.headers['x-request-id']), MADE);
    const strange = await send(behindProxy.url, 'GET', '/', { 'x-request-id': 'a;b' });
    assert.match(String(strange.headers['x-request-id']), MADE);
  });

  it('is on a problem answered before routing, and on a tunnelled HEAD', async () => {
    const raw = await sendRaw(direct.url, 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n');
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.match(raw, /\r\nx-request-id: [0-9a-f]{32}\r\n/i);
    const tunnelled = await send(direct.url, 'POST', '/', { 'x-http-method': 'HEAD' });
    assert.match(String(tunnelled.headers['x-request-id']), MADE);
  });
});

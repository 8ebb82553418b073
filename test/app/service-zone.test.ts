/**
 * Every problem of a path that exists under SERVICE_BASE is JSON, 405 included: a route there
 * that allows only some methods answers the others with application/problem+json, whatever the
 * Accept, while a 405 elsewhere (`/`) keeps the observed negotiation.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { createApp } from '../../src/app/app.js';
import { sendBody } from '../../src/http/response.js';
import { problemOf, send } from '../helpers/http.js';
import { createMemoryLogger, testConfig } from '../helpers/service.js';

const config = testConfig();
const app = createApp({
  config,
  logger: createMemoryLogger(),
  routes: [{ id: 'test.things', path: '/api/things', methods: ['GET'], handler: (ctx, _req, res) => sendBody(res, 200, ['content-type', 'application/json'], '[]', ctx.receivedAt) }],
});
const server = createServer(app).listen(0, '127.0.0.1');
await once(server, 'listening');
after(() => server.close());
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

describe('a 405 under SERVICE_BASE', () => {
  it('is application/problem+json with Accept */*, as every other problem of the path', async () => {
    const res = await send(url, 'PUT', '/api/things', { accept: '*/*' });
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET');
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(problemOf(res).detail, 'No route found for "PUT /api/things": Method Not Allowed (Allow: GET)');
  });

  it('leaves the 405 of / as observed: HTML for Accept */*', async () => {
    const res = await send(url, 'PUT', '/', { accept: '*/*' });
    assert.equal(res.status, 405);
    assert.equal(res.headers['content-type'], 'text/html; charset=UTF-8');
  });
});

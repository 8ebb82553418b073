/**
 * The service API's OpenAPI document (`GET /schema/openapi.json` with POSTER_API=1): it lists
 * every problem of the route's own list (POSTER_PROBLEMS) and every answer the route is driven
 * into here, with the type and the headers each really carries; its request schema is the one
 * served at /schema/1.0/poster.json; its URLs follow the request's base URL. (That it is valid
 * OpenAPI 3.1 is for a real validator: test/e2e/openapi.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROBLEMS } from '../../src/core/problem.js';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { POSTER_PROBLEMS } from '../../src/poster/api.js';
import { writePoster } from '../../src/poster/library.js';
import { OPENAPI_MEDIA_TYPE } from '../../src/poster/openapi.js';
import { problemOf, send, type RawResponse } from '../helpers/http.js';
import { clockAtWindowStart } from '../helpers/rate-window.js';
import { startTestService, type TestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-openapi-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'openapi passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
const keys = { JWT_SECRET_KEY: keyPaths.secretKeyPath, JWT_PUBLIC_KEY: keyPaths.publicKeyPath, JWT_PASSPHRASE: PASS };
/** The services below run on this clock: each subject's requests fall in one rate window. */
const clock = clockAtWindowStart();

/** A JSON object of the document, for reading it without a type for every level. */
type Json = Record<string, any>;

async function fetchDocument(service: TestService, headers: Record<string, string> = {}): Promise<Json> {
  const res = await send(service.url, 'GET', '/schema/openapi.json', headers);
  assert.equal(res.status, 200, res.body);
  return JSON.parse(res.body) as Json;
}

/** The problem types a response of the document allows (one, or several told apart by type). */
function typesOf(response: Json): string[] {
  const schema = response.content['application/problem+json'].schema;
  return (schema.oneOf ?? [schema]).map((s: Json) => s.allOf[1].properties.type.const);
}

/** Headers a problem answer may carry that the document must name when it does. */
const PROBLEM_HEADERS = ['link', 'retry-after', 'www-authenticate'];

/** Asserts that the document lists the answer: its status, its problem type, the headers it carries. */
function assertListed(doc: Json, res: RawResponse, what: string): void {
  const response = doc.paths['/posters'].post.responses[res.status];
  assert.ok(response, `${what}: status ${res.status} is not in the document`);
  const documented = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
  for (const name of documented) assert.ok(res.headers[name] !== undefined, `${what}: the document says ${name}, the answer has none`);
  if (res.status === 201) return;
  assert.ok(typesOf(response).includes(problemOf(res).type as string), `${what}: type ${String(problemOf(res).type)} is not listed for ${res.status}`);
  for (const name of PROBLEM_HEADERS) {
    if (res.headers[name] !== undefined) assert.ok(documented.includes(name), `${what}: the answer carries ${name}, the document does not say so`);
  }
}

/** A port nothing listens on: a REDIS_URL whose connections are refused. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the OpenAPI document', async () => {
  const publicDir = join(root, 'public');
  const existing = { title: 'Ya existe' };
  await writePoster(existing, publicDir);
  // POSTER_MAX_BYTES=0: any new poster is a 507, an existing one a 201; POSTER_RATE_LIMIT=1: a subject's second request is a 429.
  const api = await startTestService({ POSTER_API: '1', PUBLIC_DIR: publicDir, POSTER_MAX_BYTES: '0', POSTER_RATE_LIMIT: '1', ...keys }, { clock });
  const headersOf = async (subject: string) => ({ authorization: `Bearer ${await issueToken(privateKey, subject, 600, clock())}`, 'content-type': 'application/json' });
  const post = async (service: TestService, headers: Record<string, string>, body: string) => send(service.url, 'POST', '/api/posters', headers, body);
  const doc = await fetchDocument(api);

  it('is served as OpenAPI 3.1 JSON, to HEAD as to GET', async () => {
    const res = await send(api.url, 'GET', '/schema/openapi.json');
    assert.equal(res.headers['content-type'], OPENAPI_MEDIA_TYPE);
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    const head = await send(api.url, 'HEAD', '/schema/openapi.json');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], res.headers['content-length']);
  });

  it('lists every problem of the route\'s own list with its status and type', () => {
    const responses = doc.paths['/posters'].post.responses;
    const statuses = [...new Set(POSTER_PROBLEMS.map((code) => String(PROBLEMS[code].status)))].sort();
    assert.deepEqual(Object.keys(responses).filter((s) => s !== '201').sort(), statuses, 'the problem statuses, no more, no fewer');
    for (const code of POSTER_PROBLEMS) {
      const { status, type } = PROBLEMS[code];
      const expected = type === undefined ? `${api.url}/problem/api` : `${api.url}/problem/${type}`;
      assert.ok(typesOf(responses[status]).includes(expected), `${code}: ${expected} under ${status}`);
    }
  });

  it('lists every answer the route gives, with its type and headers', async () => {
    const answers: [string, RawResponse][] = [];
    const answer = async (what: string, headers: Record<string, string>, body: string) => void answers.push([what, await post(api, headers, body)]);
    await answer('no token', { 'content-type': 'application/json' }, '{}');
    await answer('a token that is not one', { authorization: 'Bearer x.y.z', 'content-type': 'application/json' }, '{}');
    await answer('a body of text', { ...(await headersOf('media')), 'content-type': 'text/plain' }, 'title=x');
    await answer('a body over 64 KiB', await headersOf('large'), JSON.stringify({ title: 'x', body: 'y'.repeat(70_000) }));
    await answer('a body that is not JSON', await headersOf('json'), '{"title": ');
    await answer('an invalid spec', await headersOf('spec'), JSON.stringify({ title: '' }));
    await answer('past the rate limit', await headersOf('spec'), JSON.stringify({ title: '' }));
    await answer('a new poster in a full store', await headersOf('full'), JSON.stringify({ title: 'no room' }));
    await answer('a poster that exists', await headersOf('exists'), JSON.stringify(existing));
    assert.deepEqual(answers.map(([, res]) => res.status), [401, 401, 415, 413, 400, 422, 429, 507, 201]);
    for (const [what, res] of answers) assertListed(doc, res, what);
    const options = await send(api.url, 'OPTIONS', '/api/posters');
    assert.equal(options.status, 204);
    assert.equal(options.headers.allow, doc.components.headers.Allow.schema.const, 'OPTIONS: Allow as documented');
    assert.ok(doc.paths['/posters'].options.responses[204], 'OPTIONS: 204 documented');
  });

  it('lists the 503 of a full render queue', async () => {
    const busy = await startTestService({ POSTER_API: '1', PUBLIC_DIR: join(root, 'busy'), ...keys }, { renderPool: { size: 1, maxQueued: 0 }, clock });
    const headers = await headersOf('busy');
    const answers = await Promise.all(['one', 'two', 'three'].map((title) => post(busy, headers, JSON.stringify({ title, body: 'x'.repeat(900) }))));
    const refused = answers.find((a) => a.status === 503);
    assert.ok(refused, answers.map((a) => a.status).join(' '));
    assertListed(await fetchDocument(busy), refused, 'a full render queue');
  });

  it('lists the 503 of limits that cannot be checked (REDIS_URL away)', async () => {
    const away = await startTestService({ POSTER_API: '1', PUBLIC_DIR: join(root, 'away'), REDIS_URL: `redis://127.0.0.1:${await closedPort()}/0`, ...keys }, { clock });
    const res = await post(away, await headersOf('away'), JSON.stringify({ title: 'x' }));
    assert.equal(res.status, 503, res.body);
    assertListed(await fetchDocument(away), res, 'Redis away');
  });

  it('describes the request with the schema served at /schema/1.0/poster.json', async () => {
    const served = JSON.parse((await send(api.url, 'GET', '/schema/1.0/poster.json')).body) as Json;
    assert.deepEqual(doc.components.schemas.PosterSpec, served);
    const body = doc.paths['/posters'].post.requestBody;
    assert.equal(body.required, true);
    assert.equal(body.content['application/json'].schema.$ref, '#/components/schemas/PosterSpec');
  });

  it('names the bearer JWT scheme (ES512) and asks for it on POST only', () => {
    const scheme = doc.components.securitySchemes.bearerJwt;
    assert.deepEqual([scheme.type, scheme.scheme, scheme.bearerFormat], ['http', 'bearer', 'JWT']);
    assert.match(scheme.description, /ES512/);
    assert.deepEqual(doc.paths['/posters'].post.security, [{ bearerJwt: [] }]);
    assert.deepEqual(doc.paths['/posters'].options.security, []);
  });

  it('gives URLs of the request\'s base URL: the server, the types, the schema', async () => {
    assert.deepEqual(doc.servers, [{ url: `${api.url}/api` }], 'server + /posters is the route');
    const other = await fetchDocument(api, { host: 'posters.example.test:8443' });
    assert.deepEqual(other.servers, [{ url: 'http://posters.example.test:8443/api' }]);
    assert.equal(other.components.schemas.PosterSpec.$id, 'http://posters.example.test:8443/schema/1.0/poster.json');
    assert.ok(typesOf(other.paths['/posters'].post.responses[401]).includes('http://posters.example.test:8443/problem/1.0/unauthorized'));
  });

  it('follows the namespaces: SERVICE_BASE, SCHEMA_BASE and PROBLEM_BASE elsewhere', async () => {
    const moved = await startTestService({
      POSTER_API: '1', PUBLIC_DIR: join(root, 'moved'), SERVICE_BASE: '/v2/service/', SCHEMA_BASE: '/schemas/', PROBLEM_BASE: 'https://errors.example.test/p/', ...keys,
    }, { clock });
    const res = await send(moved.url, 'GET', '/schemas/openapi.json');
    assert.equal(res.status, 200, res.body);
    const movedDoc = JSON.parse(res.body) as Json;
    assert.deepEqual(movedDoc.servers, [{ url: `${moved.url}/v2/service` }]);
    assert.equal(movedDoc.components.schemas.PosterSpec.$id, `${moved.url}/schemas/1.0/poster.json`);
    const types = POSTER_PROBLEMS.flatMap((code) => typesOf(movedDoc.paths['/posters'].post.responses[PROBLEMS[code].status]));
    assert.ok(types.includes('https://errors.example.test/p/1.0/busy'), 'a type of its own');
    assert.ok(types.includes('https://errors.example.test/p/service'), 'the 500\'s type: the route path\'s parent segment');
    assert.equal((await send(moved.url, 'GET', '/schema/openapi.json')).status, 404, 'not under the default SCHEMA_BASE');
  });
});

describe('without POSTER_API', () => {
  it('has no OpenAPI document: /schema/openapi.json is a 404 like any unknown path', async () => {
    const plain = await startTestService();
    const res = await send(plain.url, 'GET', '/schema/openapi.json', { accept: 'application/json' });
    assert.equal(res.status, 404);
    assert.equal(problemOf(res).detail, 'No route found for "GET /schema/openapi.json"');
  });
});

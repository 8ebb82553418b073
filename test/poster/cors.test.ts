/**
 * CORS_ORIGINS: browser apps of listed origins (or any, with `*`) may call the poster API. The
 * preflight is answered without a token; every answer of the route, problems included, tells a
 * listed origin it may read it; an origin not listed gets no Access-Control-* header.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseConfig } from '../../src/config/config.js';
import { MAX_CORS_ORIGINS, parseCorsOrigins } from '../../src/config/index.js';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { problemOf, send, type RawResponse } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-cors-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'cors passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const token = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'cors', 600, Date.now());
const settings = { POSTER_API: '1', PUBLIC_DIR: join(root, 'public'), JWT_SECRET_KEY: keyPaths.secretKeyPath, JWT_PUBLIC_KEY: keyPaths.publicKeyPath, JWT_PASSPHRASE: PASS };
const APP = 'https://app.example.com';
const PREFLIGHT = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' };

const accessControl = (res: RawResponse) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-')).sort();

describe('CORS_ORIGINS with a list of origins', async () => {
  const api = await startTestService({ ...settings, CORS_ORIGINS: `${APP}, http://localhost:5173` });

  it('answers a listed origin\'s preflight with 204, the methods, headers and max-age it may use, without a token', async () => {
    const res = await send(api.url, 'OPTIONS', '/api/posters', { origin: APP, ...PREFLIGHT });
    assert.equal(res.status, 204);
    assert.equal(res.body, '');
    assert.equal(res.headers.allow, 'OPTIONS, POST');
    assert.equal(res.headers['access-control-allow-origin'], APP);
    assert.equal(res.headers['access-control-allow-methods'], 'POST');
    assert.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type');
    assert.equal(res.headers['access-control-max-age'], '600');
    assert.equal(res.headers['access-control-allow-credentials'], undefined, 'a bearer token, no cookies');
    assert.equal(res.headers.vary, 'Origin');
  });

  it('lets a listed origin read a 201 and its Location', async () => {
    const res = await send(api.url, 'POST', '/api/posters', { origin: APP, authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify({ title: 'CORS' }));
    assert.equal(res.status, 201, res.body);
    assert.equal(res.headers['access-control-allow-origin'], APP);
    assert.equal(res.headers['access-control-expose-headers'], 'Location, Link, Retry-After, WWW-Authenticate');
    assert.equal(res.headers.vary, 'Origin');
  });

  it('lets a listed origin read the problems of the route: a 401 and a 405, JSON, with one Vary on Origin and Accept', async () => {
    const unauthorized = await send(api.url, 'POST', '/api/posters', { origin: 'http://localhost:5173', 'content-type': 'application/json' }, '{}');
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.deepEqual(varyLines(unauthorized), ['Origin, Accept']);
    const wrongMethod = await send(api.url, 'PUT', '/api/posters', { origin: APP, accept: '*/*' });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers['content-type'], 'application/problem+json');
    assert.equal(wrongMethod.headers['access-control-allow-origin'], APP);
    assert.equal(wrongMethod.headers.allow, 'OPTIONS, POST');
    assert.deepEqual(varyLines(wrongMethod), ['Origin, Accept']);
  });

  it('gives an origin that is not listed no Access-Control-* header: a preflight is the plain 204 with Allow', async () => {
    for (const origin of ['https://evil.example', 'null', `${APP}.evil.example`, `${APP}, ${APP}`, APP.toUpperCase()]) {
      const preflight = await send(api.url, 'OPTIONS', '/api/posters', { origin, ...PREFLIGHT });
      assert.equal(preflight.status, 204, origin);
      assert.equal(preflight.headers.allow, 'OPTIONS, POST', origin);
      assert.deepEqual(accessControl(preflight), [], origin);
      assert.equal(preflight.headers.vary, 'Origin', origin);
      const post = await send(api.url, 'POST', '/api/posters', { origin, 'content-type': 'application/json' }, '{}');
      assert.equal(post.status, 401, origin);
      assert.deepEqual(accessControl(post), [], origin);
    }
  });
});

describe('CORS_ORIGINS=*', async () => {
  const api = await startTestService({ ...settings, CORS_ORIGINS: '*' });

  it('allows any origin with *, and needs no Vary: Origin', async () => {
    const preflight = await send(api.url, 'OPTIONS', '/api/posters', { origin: 'https://anyone.example', ...PREFLIGHT });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.equal(preflight.headers['access-control-allow-headers'], 'Authorization, Content-Type');
    assert.equal(preflight.headers.vary, undefined);
    const refused = await send(api.url, 'POST', '/api/posters', { origin: 'https://anyone.example', 'content-type': 'text/plain' }, 'x');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], '*');
    assert.equal(problemOf(refused).status, 401);
  });
});

describe('CORS_ORIGINS at start-up', () => {
  const config = (value: string) => parseConfig({ APP_ENV: 'test', CORS_ORIGINS: value }, root);

  it('is off when empty, the default', () => {
    assert.deepEqual(parseConfig({ APP_ENV: 'test' }, root).corsOrigins, { kind: 'off' });
    assert.deepEqual(config('').corsOrigins, { kind: 'off' });
  });

  it('normalises origins as browsers send them (lower-case host, no trailing slash, default port dropped)', () => {
    assert.deepEqual(config('https://App.Example.com/, http://localhost:5173,https://a.example:443').corsOrigins, {
      kind: 'listed', origins: ['https://app.example.com', 'http://localhost:5173', 'https://a.example'],
    });
  });

  it('stops start-up with one line naming CORS_ORIGINS for a value that is not origins', () => {
    const cases: [string, RegExp][] = [
      ['https://app.example.com/path', /^ConfigError: Invalid setting CORS_ORIGINS: "https:\/\/app\.example\.com\/path" is not an origin/],
      ['app.example.com', /is not an origin such as https:\/\/app\.example\.com/],
      ['null', /"null" is not an origin/],
      ['https://user:pw@app.example.com', /is not an origin/],
      ['https://a.example,,https://b.example', /"" is not an origin/],
      ['*, https://a.example', /"\*" allows every origin and must stand alone/],
    ];
    for (const [value, message] of cases) assert.throws(() => config(value), message, value);
  });

  it(`refuses more than ${MAX_CORS_ORIGINS} origins`, () => {
    const many = Array.from({ length: MAX_CORS_ORIGINS + 1 }, (_, i) => `https://a${i}.example`).join(',');
    assert.throws(() => parseCorsOrigins(many), new RegExp(`more than ${MAX_CORS_ORIGINS}`));
  });
});

/** The values of every Vary line of an answer, each line apart. */
function varyLines(res: RawResponse): string[] {
  return res.rawHeaders.filter((_, i) => i % 2 === 1 && res.rawHeaders[i - 1]!.toLowerCase() === 'vary');
}

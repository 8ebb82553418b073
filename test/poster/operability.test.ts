/**
 * The poster API as the operator sees it: its metrics, its readiness check, and the subject of
 * each verified token in the access log.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { sample } from '../helpers/metrics-page.js';
import { send } from '../helpers/http.js';
import { eventually } from '../helpers/eventually.js';
import { readAccessLog } from '../helpers/log-files.js';
import { clockAtWindowStart } from '../helpers/rate-window.js';
import { startTestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-ops-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'poster operability passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
const logDir = join(root, 'log');

// The three posts below fall in one rate window however slowly the machine runs them.
const clock = clockAtWindowStart();
const api = await startTestService({
  POSTER_API: '1',
  POSTER_RATE_LIMIT: '2',
  PUBLIC_DIR: join(root, 'public'),
  LOG_DIR: logDir,
  ADMIN_PORT: '0',
  JWT_SECRET_KEY: keyPaths.secretKeyPath,
  JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
  JWT_PASSPHRASE: PASS,
}, { renderPool: { size: 1 }, clock });
const token = await issueToken(privateKey, 'ana', 3600, clock());
const post = (body: string) => send(api.url, 'POST', '/api/posters', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);


describe('the poster API on the operator\'s listener', () => {
  it('is ready once a render worker runs, which the first probe starts', async () => {
    const res = await send(api.adminUrl!, 'GET', '/readyz');
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).checks.poster_pool, 'ok');
  });

  it('counts renders, their time, the store, cached tokens and refusals by the rate limit', async () => {
    assert.equal((await post(JSON.stringify({ title: 'Metrics' }))).status, 201);
    assert.equal((await post(JSON.stringify({ title: 'Metrics' }))).status, 201, 'the same poster again: no render');
    assert.equal((await post(JSON.stringify({ title: 'Third' }))).status, 429);
    const page = (await send(api.adminUrl!, 'GET', '/metrics')).body;
    assert.equal(sample(page, 'poster_renders_total{result="ok"}'), 1);
    assert.equal(sample(page, 'poster_render_duration_seconds_count'), 1);
    assert.ok(sample(page, 'poster_render_duration_seconds_sum')! > 0);
    assert.ok(sample(page, 'poster_store_bytes')! > 10_000, 'the poster is counted in the store');
    assert.equal(sample(page, 'poster_store_limit_bytes'), 1024 ** 3);
    assert.equal(sample(page, 'poster_queue_depth'), 0);
    assert.equal(sample(page, 'rate_limited_total'), 1);
    assert.equal(sample(page, 'jwt_cache_hits_total'), 2, 'the second and third requests found the token verified');
    assert.equal(sample(page, 'http_requests_total{method="POST",status="201"}'), 2);
    assert.equal(sample(page, 'http_requests_total{method="POST",status="429"}'), 1);
  });

  it('writes the verified token\'s subject in the access line, and none for a request without one', async () => {
    assert.equal((await send(api.url, 'POST', '/api/posters', { 'content-type': 'application/json' }, '{}')).status, 401);
    // The access log writes after a short gathering delay: wait for the fourth post's line.
    const posts = await eventually('four posts in the access log', () => readAccessLog(logDir).filter((e) => e.target === '/api/posters'), (p) => p.length >= 4);
    assert.deepEqual(posts.map((e) => [e.status, e.subject]), [[201, 'ana'], [201, 'ana'], [429, 'ana'], [401, null]]);
  });
});

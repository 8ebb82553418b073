import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startAdminListener } from '../../src/ops/listener.js';
import { reportOf, runChecks, type ReadinessReport } from '../../src/ops/readiness.js';
import { send } from '../helpers/http.js';

describe('readiness checks', () => {
  it('is ready only when every check passes, and names each one', async () => {
    assert.deepEqual(reportOf([['a', undefined], ['b', undefined]]), { ready: true, checks: { a: 'ok', b: 'ok' } });
    assert.deepEqual(reportOf([['a', undefined], ['b', 'disk full']]), { ready: false, checks: { a: 'ok', b: 'disk full' } });
  });

  it('fails a check that throws with its message, and one that hangs once its time is up', async () => {
    const report = await runChecks([
      { name: 'fine', run: () => undefined },
      { name: 'throws', run: () => { throw new Error('store unreadable'); } },
      { name: 'rejects', run: async () => { throw new Error('EACCES'); } },
      { name: 'hangs', run: () => new Promise<undefined>(() => {}) },
    ], 50);
    assert.deepEqual(report, { ready: false, checks: { fine: 'ok', throws: 'store unreadable', rejects: 'EACCES', hangs: 'no answer within 50 ms' } });
  });
});

describe('the operator\'s listener', async () => {
  let report: ReadinessReport = { ready: true, checks: { log_dir: 'ok' } };
  const admin = await startAdminListener('127.0.0.1', 0, {
    readiness: async () => report,
    metricsPage: async () => '# TYPE up gauge\nup 1\n',
    metricsContentType: 'text/plain; version=0.0.4; charset=utf-8',
  });
  after(() => admin.close());

  it('prints its real address', () => assert.match(admin.url, /^http:\/\/127\.0\.0\.1:\d+$/));

  it('answers /healthz 200 while the process runs', async () => {
    const res = await send(admin.url, 'GET', '/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { status: 'alive' });
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('answers /readyz 200 when ready, 503 naming the failing check when not', async () => {
    const ready = await send(admin.url, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(JSON.parse(ready.body), { ready: true, checks: { log_dir: 'ok' } });
    report = { ready: false, checks: { log_dir: '/var/log/x takes no writes (EROFS)' } };
    const notReady = await send(admin.url, 'GET', '/readyz?verbose=1');
    assert.equal(notReady.status, 503);
    assert.equal(JSON.parse(notReady.body).checks.log_dir, '/var/log/x takes no writes (EROFS)');
    const head = await send(admin.url, 'HEAD', '/readyz');
    assert.equal(head.status, 503);
    assert.equal(head.body, '');
  });

  it('answers /metrics in the exposition format', async () => {
    const res = await send(admin.url, 'GET', '/metrics');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(res.body, '# TYPE up gauge\nup 1\n');
  });

  it('serves nothing else: 404 for other paths, 405 with Allow for other methods', async () => {
    assert.equal((await send(admin.url, 'GET', '/')).status, 404);
    assert.equal((await send(admin.url, 'GET', '/healthz/')).status, 404);
    const post = await send(admin.url, 'POST', '/metrics');
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });

  it('refuses to start on a port in use, naming ADMIN_PORT', async () => {
    const port = Number(new URL(admin.url).port);
    await assert.rejects(
      startAdminListener('127.0.0.1', port, { readiness: async () => report, metricsPage: async () => '', metricsContentType: 'text/plain' }),
      { message: `ADMIN_PORT ${port} is in use (EADDRINUSE)` },
    );
  });
});

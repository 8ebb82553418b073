/**
 * Two instances of the service behind a real nginx configured by the shipped site file,
 * deploy/nginx/problem-service.conf (its placeholders filled in, nothing else changed): plain
 * HTTP redirected to https and never passed on, round robin, X-Forwarded-For/-Proto trusted from
 * the proxy only, https links behind the TLS listener, and no lost request when an instance dies. nginx connects to the instances from
 * 127.0.0.2 (`proxy_bind`), the only address they trust. Needs nginx and openssl; fails, never
 * skips, without them.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { send, type RawResponse } from '../helpers/http.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';
import { freePort, httpsGet, mainConfig, PROXY_ADDRESS, renderSite, startNginx, writeThrowAwayCertificate, stopNginxAndInstances, type RunningNginx } from './nginx-helpers.js';

/** The client IP the dev error page shows. */
function shownClient(res: RawResponse): string | undefined {
  return /<dt>client<\/dt><dd>([^<]*)<\/dd>/.exec(res.body)?.[1];
}

const INSTANCE_ENV = { APP_ENV: 'dev', APP_DEBUG: '1', TRUSTED_PROXIES: PROXY_ADDRESS };

describe('nginx in front of two instances (deploy/nginx/problem-service.conf)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nginx-e2e-'));
  // nginx workers drop root privileges (to nobody) and still need to reach the temp paths.
  chmodSync(dir, 0o755);
  let urls: string[] = [];
  let nginxUrl = '';
  let httpsPort = 0;
  let certificate = '';
  let nginx: RunningNginx | undefined;
  // Registered before the instances start, so it runs before the helper removes their VAR_DIRs.
  after(async () => {
    await stopNginxAndInstances(nginx, instances);
    rmSync(dir, { recursive: true, force: true });
  });
  const instances: ServerProgram[] = [runServerProgram(INSTANCE_ENV), runServerProgram(INSTANCE_ENV)];

  before(async () => {
    const [httpPort, tlsPort] = [await freePort(), await freePort()];
    httpsPort = tlsPort;
    nginxUrl = `http://127.0.0.1:${httpPort}`;
    await writeThrowAwayCertificate(dir);
    certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
    urls = await Promise.all(instances.map((i) => i.listening));
    const upstreams = urls.map((u) => `server ${new URL(u).host};`).join('\n    ');
    writeFileSync(join(dir, 'problem-service.conf'), renderSite({
      UPSTREAMS: upstreams,
      HTTP_LISTEN: `127.0.0.1:${httpPort}`,
      HTTPS_LISTEN: `127.0.0.1:${tlsPort}`,
      SERVER_NAME: '127.0.0.1 localhost',
      TLS_CERTIFICATE: join(dir, 'cert.pem'),
      TLS_CERTIFICATE_KEY: join(dir, 'key.pem'),
    }));
    writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir));
    nginx = await startNginx(dir, [httpPort, tlsPort]);
  });

  /** A GET through nginx's TLS listener, the only one that proxies. */
  const viaNginx = (target: string, headers: Record<string, string> = {}) => httpsGet(httpsPort, certificate, target, headers);

  /** Which instance answered: the one whose profiler holds the response's token. */
  async function answeredBy(res: RawResponse): Promise<number> {
    const token = res.headers['x-debug-token'];
    assert.equal(typeof token, 'string', 'no x-debug-token: is the instance in dev with APP_DEBUG=1?');
    const found = await Promise.all(urls.map(async (u) => (await send(u, 'GET', `/_profiler/${String(token)}`)).status === 200));
    assert.equal(found.filter(Boolean).length, 1, `token ${String(token)} found on ${found.filter(Boolean).length} instances`);
    return found.indexOf(true);
  }

  it('spreads requests over both instances, round robin', async () => {
    const answered: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await viaNginx('/', { accept: 'application/json' });
      assert.equal(res.status, 200, `request ${i}: ${res.body}`);
      answered.push(await answeredBy(res));
    }
    assert.deepEqual(new Set(answered), new Set([0, 1]), `answered by ${answered.join(', ')}`);
    for (let i = 1; i < answered.length; i++) {
      assert.notEqual(answered[i], answered[i - 1], `requests ${i - 1} and ${i} went to the same instance: ${answered.join(', ')}`);
    }
  });

  it('shows the client behind nginx, not nginx, as the client IP', async () => {
    const res = await viaNginx('/nowhere', { accept: 'text/html' });
    assert.equal(res.status, 404);
    assert.equal(shownClient(res), '127.0.0.1', 'X-Forwarded-For from the trusted proxy was not used');
  });

  it('takes the right-most untrusted hop when a client sends its own X-Forwarded-For through nginx', async () => {
    const res = await viaNginx('/nowhere', { accept: 'text/html', 'x-forwarded-for': '203.0.113.9' });
    assert.equal(shownClient(res), '127.0.0.1', 'a forged X-Forwarded-For in front of nginx\'s own hop was believed');
  });

  it('does not believe X-Forwarded-For or X-Forwarded-Proto from a direct client', async () => {
    const res = await send(urls[0]!, 'GET', '/nowhere', {
      accept: 'text/html',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-proto': 'https',
    });
    assert.equal(shownClient(res), '127.0.0.1', 'spoofed X-Forwarded-For was believed');
    assert.match(String(res.headers['x-debug-token-link']), /^http:\/\//, 'spoofed X-Forwarded-Proto was believed');
  });

  it('redirects plain HTTP to https with the same target, passing nothing (no bearer token) to an instance', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await send(nginxUrl, method, '/plain-http-probe?size=1', { accept: 'application/json', authorization: 'Bearer sent-in-clear' });
      assert.equal(res.status, 308, `${method}: ${res.body}`);
      // $host has no port: the redirect names the standard HTTPS port (see the site file).
      assert.equal(res.headers.location, 'https://127.0.0.1/plain-http-probe?size=1', method);
      // Both instances run the dev profiler, which marks every answer they give.
      assert.equal(res.headers['x-debug-token'], undefined, `${method}: an instance answered`);
    }
    // An instance logs every 404 (within 100 ms): neither logged the probe.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const instance of instances) {
      const logDir = join(instance.varDir, 'log');
      const logged = readdirSync(logDir).map((name) => readFileSync(join(logDir, name), 'utf8')).join('');
      assert.ok(!logged.includes('plain-http-probe'), `an instance got the plain-HTTP request: ${logged}`);
    }
  });

  it('links profiles with https:// when nginx terminates TLS and says X-Forwarded-Proto: https', async () => {
    const res = await httpsGet(httpsPort, certificate, '/');
    assert.equal(res.status, 200, res.body);
    assert.match(String(res.headers['x-debug-token-link']), /^https:\/\/127\.0\.0\.1\/_profiler\/[0-9a-f]{6}$/);
    const notFound = await httpsGet(httpsPort, certificate, '/nowhere');
    assert.equal(shownClient(notFound), '127.0.0.1');
  });

  it('loses no request when an instance is killed: nginx retries on the other one', async () => {
    const statuses: number[] = [];
    const stderrBefore = nginx!.stderr().length;
    for (let i = 0; i < 200; i++) {
      // Sent without waiting for the death, so it may land between, during or after requests.
      if (i === 100) instances[1]!.child.kill('SIGKILL');
      const res = await viaNginx('/', { accept: 'application/json' });
      statuses.push(res.status);
    }
    const [, signal] = await instances[1]!.exited;
    assert.equal(signal, 'SIGKILL');
    const failed = statuses.map((s, i) => [i, s]).filter(([, s]) => s !== 200);
    assert.deepEqual(failed, [], `requests [index, status] not answered 200: ${JSON.stringify(failed)}`);
    // The retry path really ran: nginx logged the failed attempt on the dead instance.
    assert.match(nginx!.stderr().slice(stderrBefore), /upstream/, 'nginx never noticed the dead instance');
  });
});

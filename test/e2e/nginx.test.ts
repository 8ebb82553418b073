/**
 * Two instances of the service behind a real nginx configured by the shipped site file,
 * deploy/nginx/problem-service.conf (its placeholders filled in, nothing else changed): round
 * robin, X-Forwarded-For/-Proto trusted from the proxy only, https links behind the TLS
 * listener, and no lost request when an instance dies. nginx connects to the instances from
 * 127.0.0.2 (`proxy_bind`), the only address they trust. Needs nginx and openssl; fails, never
 * skips, without them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { send, type RawResponse } from '../helpers/http.js';
import { runProgram } from '../helpers/programs.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';

const SITE_FILE = 'deploy/nginx/problem-service.conf';
const PROXY_ADDRESS = '127.0.0.2';

/** A free loopback port, chosen by asking the kernel for one and releasing it. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until something accepts connections on the port. */
async function waitForPort(port: number, isAlive: () => boolean, describeFailure: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (connected) return;
    if (!isAlive() || Date.now() > deadline) throw new Error(`nothing listens on ${port}: ${describeFailure()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The site file with its placeholders filled in (comment lines kept as they are); fails on an unknown one. */
function renderSite(values: Record<string, string>): string {
  const fill = (line: string) => line.replace(/__([A-Z_]+?)__/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${SITE_FILE}: no value for ${placeholder}`);
    return value;
  });
  return readFileSync(SITE_FILE, 'utf8')
    .split('\n')
    .map((line) => (line.trimStart().startsWith('#') ? line : fill(line)))
    .join('\n');
}

/** A main nginx.conf that keeps everything (pid, logs, temp files) inside `dir`. */
function mainConfig(dir: string): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # The instances trust this address only: they see nginx as ${PROXY_ADDRESS}.
  proxy_bind ${PROXY_ADDRESS};
  include ${dir}/problem-service.conf;
}
`;
}

/** GET over TLS, trusting only the test's own certificate. */
function httpsGet(port: number, ca: string, target: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: target, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer in 10 s to GET ${target}`)));
    req.on('error', reject);
    req.end();
  });
}

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
  let nginxStderr = '';
  let nginx: ReturnType<typeof spawn> | undefined;
  // Registered before the instances start, so it runs before the helper removes their VAR_DIRs.
  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = once(nginx, 'exit');
      nginx.kill('SIGTERM');
      await exited;
    }
    await Promise.all(instances.map(async (instance) => {
      if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
      instance.child.kill('SIGTERM');
      await instance.exited;
    }));
    rmSync(dir, { recursive: true, force: true });
  });
  const instances: ServerProgram[] = [runServerProgram(INSTANCE_ENV), runServerProgram(INSTANCE_ENV)];

  before(async () => {
    const [httpPort, tlsPort] = [await freePort(), await freePort()];
    httpsPort = tlsPort;
    nginxUrl = `http://127.0.0.1:${httpPort}`;
    const cert = await runProgram('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ]);
    assert.equal(cert.code, 0, cert.stderr);
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
    const args = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'];
    const check = await runProgram('nginx', ['-t', ...args]);
    assert.equal(check.code, 0, `nginx -t refused the site file: ${check.stderr}`);
    const child = spawn('nginx', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    nginx = child;
    child.stderr.on('data', (c: Buffer) => (nginxStderr += c));
    const spawned = once(child, 'spawn');
    child.on('error', () => {}); // reported by the awaited spawn below
    await spawned.catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new Error('nginx is not installed: run scripts/install-test-tools') : err;
    });
    await waitForPort(httpPort, () => child.exitCode === null, () => nginxStderr);
    await waitForPort(tlsPort, () => child.exitCode === null, () => nginxStderr);
  });

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
      const res = await send(nginxUrl, 'GET', '/', { accept: 'application/json' });
      assert.equal(res.status, 200, `request ${i}: ${res.body}`);
      answered.push(await answeredBy(res));
    }
    assert.deepEqual(new Set(answered), new Set([0, 1]), `answered by ${answered.join(', ')}`);
    for (let i = 1; i < answered.length; i++) {
      assert.notEqual(answered[i], answered[i - 1], `requests ${i - 1} and ${i} went to the same instance: ${answered.join(', ')}`);
    }
  });

  it('shows the client behind nginx, not nginx, as the client IP', async () => {
    const res = await send(nginxUrl, 'GET', '/nowhere', { accept: 'text/html' });
    assert.equal(res.status, 404);
    assert.equal(shownClient(res), '127.0.0.1', 'X-Forwarded-For from the trusted proxy was not used');
  });

  it('takes the right-most untrusted hop when a client sends its own X-Forwarded-For through nginx', async () => {
    const res = await send(nginxUrl, 'GET', '/nowhere', { accept: 'text/html', 'x-forwarded-for': '203.0.113.9' });
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

  it('links profiles with http:// behind the plain listener', async () => {
    const res = await send(nginxUrl, 'GET', '/', { accept: 'application/json' });
    // `Host $host` passes the host name without the port (see the site file).
    assert.match(String(res.headers['x-debug-token-link']), /^http:\/\/127\.0\.0\.1\/_profiler\/[0-9a-f]{6}$/);
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
    const stderrBefore = nginxStderr.length;
    for (let i = 0; i < 200; i++) {
      // Sent without waiting for the death, so it may land between, during or after requests.
      if (i === 100) instances[1]!.child.kill('SIGKILL');
      const res = await send(nginxUrl, 'GET', '/', { accept: 'application/json' });
      statuses.push(res.status);
    }
    const [, signal] = await instances[1]!.exited;
    assert.equal(signal, 'SIGKILL');
    const failed = statuses.map((s, i) => [i, s]).filter(([, s]) => s !== 200);
    assert.deepEqual(failed, [], `requests [index, status] not answered 200: ${JSON.stringify(failed)}`);
    // The retry path really ran: nginx logged the failed attempt on the dead instance.
    assert.match(nginxStderr.slice(stderrBefore), /upstream/, 'nginx never noticed the dead instance');
  });
});

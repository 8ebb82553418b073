/**
 * Draining an instance on SIGTERM, as balancers do it. With ADMIN_PORT and DRAIN_SECONDS, a
 * stopping instance answers `/readyz` with 503 at once and serves on for DRAIN_SECONDS, every
 * answer closing its connection, before it stops listening:
 * - a real HAProxy (Debian's package) checks `/readyz` on each instance's operator listener
 *   (`option httpchk`), takes the stopping one out of rotation before it stops listening, and
 *   no client request fails;
 * - a real nginx with the shipped site file (open-source nginx has no active health checks; it
 *   learns from failed attempts) loses no request either: answers in flight finish, and a
 *   refused connection is retried on the other instance.
 * Fails, never skips, without haproxy or nginx.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { send, type RawResponse } from '../helpers/http.js';
import { readAccessLog } from '../helpers/log-files.js';
import { runProgram } from '../helpers/programs.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';
import { freePort, httpsGet, mainConfig, PROXY_ADDRESS, renderSite, startNginx, stopNginxAndInstances, waitForPort, writeThrowAwayCertificate } from './nginx-helpers.js';

const DRAIN_SECONDS = 3;

interface Instance {
  readonly program: ServerProgram;
  readonly url: string;
  readonly admin: string;
}

/** Starts an instance with its operator listener on a port of its own. */
async function startInstance(env: Record<string, string> = {}): Promise<Instance> {
  const adminPort = await freePort();
  const program = runServerProgram({ ADMIN_PORT: String(adminPort), DRAIN_SECONDS: String(DRAIN_SECONDS), ...env });
  const url = await program.listening;
  return { program, url, admin: `http://127.0.0.1:${adminPort}` };
}

/** The ids of the requests an instance answered, with when each arrived, from its access log. */
function answeredIds(instance: Instance): Map<string, number> {
  return new Map(readAccessLog(join(instance.program.varDir, 'log')).map((entry) => [String(entry.request_id), Date.parse(String(entry.time))]));
}

/** Sends requests one after another until `done`; every answer's status and request id. */
async function load(request: (i: number) => Promise<RawResponse>, done: () => boolean): Promise<{ status: number; id: string; error?: string }[]> {
  const answers: { status: number; id: string; error?: string }[] = [];
  for (let i = 0; !done(); i++) {
    try {
      const res = await request(i);
      answers.push({ status: res.status, id: String(res.headers['x-request-id']) });
    } catch (err) {
      answers.push({ status: 0, id: '', error: (err as Error).message });
    }
  }
  return answers;
}

describe('HAProxy checking /readyz drains an instance on SIGTERM', () => {
  it('stops sending it requests while it still listens, and no request fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
    const instances = [await startInstance(), await startInstance()];
    after(async () => {
      await stopNginxAndInstances(undefined, instances.map((i) => i.program));
      rmSync(dir, { recursive: true, force: true });
    });
    const port = await freePort();
    const server = (i: Instance, name: string) =>
      `  server ${name} ${new URL(i.url).host} check port ${new URL(i.admin).port}`;
    writeFileSync(join(dir, 'haproxy.cfg'), [
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 10s',
      '  timeout server 10s',
      '  retries 2',
      '  option redispatch',
      'frontend service',
      `  bind 127.0.0.1:${port}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 200ms fall 1 rise 1',
      server(instances[0]!, 'a'),
      server(instances[1]!, 'b'),
      '',
    ].join('\n'));
    const check = await runProgram('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')]);
    assert.equal(check.code, 0, check.stderr);
    const haproxy = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    haproxy.stdout!.on('data', (c: Buffer) => (output += c));
    haproxy.stderr!.on('data', (c: Buffer) => (output += c));
    haproxy.on('error', () => {});
    after(async () => {
      if (haproxy.exitCode === null) {
        haproxy.kill('SIGTERM');
        await once(haproxy, 'exit');
      }
    });
    await waitForPort(port, () => haproxy.exitCode === null, () => output);
    const front = `http://127.0.0.1:${port}`;
    // Both instances in rotation: both answer.
    const warm = await load((i) => send(front, 'GET', `/warm-${i}`), () => answeredIds(instances[1]!).size > 2 && answeredIds(instances[0]!).size > 2);
    assert.ok(warm.every((a) => a.status === 404), JSON.stringify(warm.slice(0, 5)));

    let stopAt = 0;
    let stopped = false;
    const draining = instances[0]!;
    void draining.program.exited.then(() => setTimeout(() => (stopped = true), 500));
    const answers = load((i) => {
      if (i === 50) {
        stopAt = Date.now();
        draining.program.child.kill('SIGTERM');
      }
      return send(front, 'GET', `/drain-${i}`);
    }, () => stopped);
    // Not ready from the moment the signal arrived, still listening for the drain.
    while (stopAt === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ready = await send(draining.admin, 'GET', '/readyz');
    assert.equal(ready.status, 503, ready.body);
    assert.match(JSON.parse(ready.body).checks.stopping, /stopping/);
    assert.equal((await send(draining.url, 'GET', '/still-here')).status, 404, 'it still serves while it drains');

    const results = await answers;
    const failed = results.filter((a) => a.status !== 404);
    assert.deepEqual(failed, [], 'no request through HAProxy failed');
    const [code] = await draining.program.exited;
    assert.equal(code, 0);
    // HAProxy checks every 200 ms: a second after the signal, nothing new reached the instance.
    const lateOnes = [...answeredIds(draining)].filter(([id, time]) => id.length > 0 && time > stopAt + 1000 && results.some((a) => a.id === id));
    assert.deepEqual(lateOnes, [], 'requests that reached the draining instance more than a second after SIGTERM');
    assert.ok(results.length > 100, `load kept going (${results.length} requests)`);
    assert.ok(Date.now() - stopAt >= DRAIN_SECONDS * 1000, 'it served on for DRAIN_SECONDS');
  });
});

describe('nginx (the shipped site) in front of an instance that drains on SIGTERM', () => {
  it('loses no request while the instance drains and after it stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nginx-drain-'));
    chmodSync(dir, 0o755);
    const instances = [await startInstance({ TRUSTED_PROXIES: PROXY_ADDRESS }), await startInstance({ TRUSTED_PROXIES: PROXY_ADDRESS })];
    let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
    after(async () => {
      await stopNginxAndInstances(nginx, instances.map((i) => i.program));
      rmSync(dir, { recursive: true, force: true });
    });
    const [httpPort, tlsPort] = [await freePort(), await freePort()];
    await writeThrowAwayCertificate(dir);
    const certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
    writeFileSync(join(dir, 'problem-service.conf'), renderSite({
      UPSTREAMS: instances.map((i) => `server ${new URL(i.url).host};`).join('\n    '),
      HTTP_LISTEN: `127.0.0.1:${httpPort}`,
      HTTPS_LISTEN: `127.0.0.1:${tlsPort}`,
      SERVER_NAME: '127.0.0.1 localhost',
      TLS_CERTIFICATE: join(dir, 'cert.pem'),
      TLS_CERTIFICATE_KEY: join(dir, 'key.pem'),
    }));
    writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir));
    nginx = await startNginx(dir, [httpPort, tlsPort]);

    let stopped = false;
    const draining = instances[1]!;
    void draining.program.exited.then(() => setTimeout(() => (stopped = true), 1000));
    const results = await load((i) => {
      if (i === 50) draining.program.child.kill('SIGTERM');
      return httpsGet(tlsPort, certificate, `/drain-${i}`, { 'x-request-id': 'chosen-by-the-client' });
    }, () => stopped);
    const failed = results.filter((a) => a.status !== 404);
    assert.deepEqual(failed, [], 'no request through nginx failed');
    // The site replaces the client's id by nginx's own, which the instances (trusting nginx) keep.
    assert.deepEqual(results.filter((a) => !/^[0-9a-f]{32}$/.test(a.id)), [], 'answers whose id is not nginx\'s $request_id');
    assert.ok(results.length > 100, `load kept going (${results.length} requests)`);
    const [code] = await draining.program.exited;
    assert.equal(code, 0);
    assert.ok(answeredIds(draining).size > 10, 'the draining instance had its share before it stopped');
  });
});

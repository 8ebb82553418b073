/**
 * A real nginx for end-to-end tests: the shipped site file with its placeholders filled in, a
 * main configuration that keeps everything (pid, temp files) inside one temp directory, and the
 * program started on loopback ports and stopped again. Needs nginx (and openssl for the TLS
 * listener's certificate); fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawResponse } from '../helpers/http.js';
import { runProgram } from '../helpers/programs.js';
import type { ServerProgram } from '../helpers/service.js';

/** The shipped site file; absolute, as bench:tls uses these helpers from bench/. */
export const SITE_FILE = fileURLToPath(new URL('../../deploy/nginx/problem-service.conf', import.meta.url));
/** nginx connects to the instances from this address (`proxy_bind`), the only one they trust. */
export const PROXY_ADDRESS = '127.0.0.2';

/** A GET over TLS to a loopback port, trusting only the test's own certificate `ca`. */
export function httpsGet(port: number, ca: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: target, ca, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer in 10 s to GET ${target}`)));
    req.on('error', reject);
    req.end();
  });
}

/** A free loopback port, chosen by asking the kernel for one and releasing it. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until something accepts connections on the port. */
export async function waitForPort(port: number, isAlive: () => boolean, describeFailure: () => string): Promise<void> {
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

/**
 * The site file with every placeholder replaced, as an operator's search-and-replace would (the
 * file names them in directives only); fails on an unknown one.
 */
export function renderSite(values: Record<string, string>): string {
  return readFileSync(SITE_FILE, 'utf8').replace(/__([A-Z_]+?)__/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${SITE_FILE}: no value for ${placeholder}`);
    return value;
  });
}

/**
 * A self-signed certificate for 127.0.0.1, valid one day, for the site's TLS listener:
 * `dir`/cert.pem and its key `dir`/key.pem. Needs openssl.
 */
export async function writeThrowAwayCertificate(dir: string): Promise<void> {
  const cert = await runProgram('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ]);
  assert.equal(cert.code, 0, cert.stderr);
}

/**
 * A main nginx.conf that keeps everything (pid, logs, temp files) inside `dir` and includes
 * `dir`/problem-service.conf; `httpLines` are added to its `http` block. nginx connects to the
 * instances from `proxyAddress`.
 */
export function mainConfig(dir: string, httpLines: readonly string[] = [], proxyAddress = PROXY_ADDRESS): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # The instances trust this address only: they see nginx as ${proxyAddress}.
  proxy_bind ${proxyAddress};
${httpLines.map((line) => `  ${line}\n`).join('')}  include ${dir}/problem-service.conf;
}
`;
}

export interface RunningNginx {
  readonly child: ChildProcess;
  /** Everything nginx wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for the exit (nothing to do if it already exited). */
  stop(): Promise<void>;
}

/**
 * Checks (`nginx -t`) and runs nginx with `dir` as its prefix and `dir`/nginx.conf as its
 * configuration, and waits until every port of `ports` accepts connections.
 */
export async function startNginx(dir: string, ports: readonly number[]): Promise<RunningNginx> {
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'];
  const check = await runProgram('nginx', ['-t', ...args]);
  assert.equal(check.code, 0, `nginx -t refused the configuration: ${check.stderr}`);
  const child = spawn('nginx', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const exited = once(child, 'exit');
  exited.catch(() => {});
  const running: RunningNginx = {
    child,
    stderr: () => stderr,
    async stop() {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
  const spawned = once(child, 'spawn');
  child.on('error', () => {}); // reported by the awaited spawn below
  await spawned.catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ENOENT' ? new Error('nginx is not installed: run scripts/install-test-tools') : err;
  });
  try {
    for (const port of ports) await waitForPort(port, () => child.exitCode === null, () => stderr);
  } catch (err) {
    await running.stop();
    throw err;
  }
  return running;
}

/** Stops nginx, then every instance still running (SIGTERM, waiting for each to exit). */
export async function stopNginxAndInstances(nginx: RunningNginx | undefined, instances: readonly ServerProgram[]): Promise<void> {
  await nginx?.stop();
  await Promise.all(instances.map(async (instance) => {
    if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
    instance.child.kill('SIGTERM');
    await instance.exited;
  }));
}

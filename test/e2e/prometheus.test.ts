/**
 * The service watched as operators watch it: a real Prometheus (Debian's package) scrapes the
 * operator's listener of a running service (and of a WORKERS=2 cluster, whose primary sums its
 * workers), and `promtool check metrics` reads the page a scrape gets. Fails, never skips,
 * without them.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { send } from '../helpers/http.js';
import { runProgram } from '../helpers/programs.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';
import { freePort } from './nginx-helpers.js';

/** The operator's listener a program announced on stdout. */
async function adminUrlOf(program: ServerProgram): Promise<string> {
  await program.listening;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const url = /^admin listening on (http:\/\/\S+)$/m.exec(program.output().stdout)?.[1];
    if (url !== undefined) return url;
    if (Date.now() > deadline) throw new Error(`no admin line: ${JSON.stringify(program.output())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopProgram(program: ServerProgram): Promise<void> {
  if (program.child.exitCode === null && program.child.signalCode === null) {
    program.child.kill('SIGTERM');
    await program.exited;
  }
}

interface RunningPrometheus {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
}

/** Starts Prometheus scraping `target` (host:port) every second, with its data in a temp dir. */
async function startPrometheus(target: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: problem-service',
    `    static_configs: [{ targets: ["${target}"] }]`,
    '',
  ].join('\n'));
  const check = await runProgram('promtool', ['check', 'config', config]);
  assert.equal(check.code, 0, check.stderr);
  const port = await freePort();
  const child = spawn('prometheus', [
    `--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c));
  child.stderr!.on('data', (c: Buffer) => (output += c));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new Error('prometheus is not installed: run scripts/install-test-tools') : err));
    child.once('exit', (code) => reject(new Error(`prometheus exited ${code}: ${output}`)));
  });
  failed.catch(() => {});
  after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  const url = `http://127.0.0.1:${port}`;
  await Promise.race([failed, waitFor(async () => (await send(url, 'GET', '/-/ready').catch(() => undefined))?.status === 200, 30_000, () => output)]);
  return { url, child, output: () => output };
}

async function waitFor(test: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** One number from Prometheus' query API (the first sample), or undefined when it has none yet. */
async function query(prometheus: RunningPrometheus, expression: string): Promise<number | undefined> {
  const res = await send(prometheus.url, 'GET', `/api/v1/query?query=${encodeURIComponent(expression)}`);
  const body = JSON.parse(res.body) as { status: string; data: { result: { value: [number, string] }[] } };
  assert.equal(body.status, 'success', res.body);
  const first = body.data.result[0];
  return first === undefined ? undefined : Number(first.value[1]);
}

describe('Prometheus scraping the operator\'s listener', () => {
  it('reads a page promtool finds clean, and counts what the service answered', async () => {
    const adminPort = await freePort();
    const service = runServerProgram({ ADMIN_PORT: String(adminPort) });
    after(() => stopProgram(service));
    const admin = await adminUrlOf(service);
    assert.equal(admin, `http://127.0.0.1:${adminPort}`);
    const url = await service.listening;
    for (let i = 0; i < 7; i++) await send(url, 'GET', `/scan-${i}`);
    await send(url, 'GET', '/');

    const page = await send(admin, 'GET', '/metrics');
    const lint = await runProgram('promtool', ['check', 'metrics'], page.body);
    assert.equal(lint.code, 0, lint.stderr);
    assert.equal(`${lint.stdout}${lint.stderr}`, '', 'promtool has nothing to say about the page');

    const prometheus = await startPrometheus(`127.0.0.1:${adminPort}`);
    await waitFor(async () => (await query(prometheus, 'up{job="problem-service"}')) === 1, 30_000, prometheus.output);
    await waitFor(async () => (await query(prometheus, 'sum(http_requests_total{status="404"})')) === 7, 30_000, prometheus.output);
    assert.equal(await query(prometheus, 'sum(http_requests_total{method="GET",status="200"})'), 1);
    assert.ok((await query(prometheus, 'process_resident_memory_bytes'))! > 1e6);
    assert.equal(await query(prometheus, 'sum(http_request_duration_seconds_count)'), 8);
  });

  it('sums the workers of a cluster on the primary\'s listener, a worker that died included', async () => {
    const adminPort = await freePort();
    const service = runServerProgram({ ADMIN_PORT: String(adminPort), WORKERS: '2' });
    after(() => stopProgram(service));
    const admin = await adminUrlOf(service);
    const url = await service.listening;
    // New connections each time: the kernel spreads them over both workers.
    for (let i = 0; i < 20; i++) await send(url, 'GET', `/scan-${i}`);
    const total = async () => {
      const page = (await send(admin, 'GET', '/metrics')).body;
      return page.split('\n').filter((l) => l.startsWith('http_requests_total{')).reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    };
    assert.equal(await total(), 20);
    const lint = await runProgram('promtool', ['check', 'metrics'], (await send(admin, 'GET', '/metrics')).body);
    assert.equal(lint.code, 0, lint.stderr);
    const ready = await send(admin, 'GET', '/readyz');
    assert.equal(ready.status, 200, ready.body);

    const children = await runProgram('pgrep', ['-P', String(service.child.pid)]);
    const workerPid = Number(children.stdout.toString('utf8').trim().split('\n')[0]);
    assert.ok(workerPid > 0, 'a worker process');
    process.kill(workerPid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await total(), 20, 'the dead worker\'s counts are kept');
  });
});

/**
 * The operator's side of one process: the access log, X-Request-Id, and the operator's listener
 * (ADMIN_PORT) with its probes and metrics.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { describe, it } from 'node:test';
import net from 'node:net';
import tls from 'node:tls';
import { eventually } from '../helpers/eventually.js';
import { readAccessLog } from '../helpers/log-files.js';
import { sample } from '../helpers/metrics-page.js';
import { send, sendRaw } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';


describe('the access log', async () => {
  const logDir = await mkdtemp(join(tmpdir(), 'access-'));
  const service = await startTestService({ LOG_DIR: logDir, TRUSTED_PROXIES: '127.0.0.1', APP_SECRET: 'hunter2-secret' });

  it('writes one JSON line per answered request, with what an operator asks', async () => {
    const ok = await send(service.url, 'GET', '/?q=1', { 'user-agent': 'probe/1.0', 'x-forwarded-for': '203.0.113.7', 'x-request-id': 'lb-1' });
    // The user agent goes out as the UTF-8 bytes of `agent/ü`, a character per byte.
    const missing = await send(service.url, 'POST', '/wp-login.php', {
      'x-http-method': 'DELETE', referer: 'https://example.com/', accept: 'application/json', 'user-agent': 'agent/\u00c3\u00bc',
    });
    await service.stop();
    const lines = readAccessLog(logDir);
    assert.equal(lines.length, 2);
    const [first, second] = lines;
    assert.deepEqual(Object.keys(first!), ['time', 'request_id', 'client_ip', 'method', 'routed_method', 'target', 'protocol', 'status', 'bytes', 'duration_ms', 'user_agent', 'referer', 'subject', 'worker', 'completed']);
    assert.match(String(first!.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
    assert.equal(first!.request_id, 'lb-1');
    assert.equal(ok.headers['x-request-id'], 'lb-1');
    assert.equal(first!.client_ip, '203.0.113.7');
    assert.equal(first!.method, 'GET');
    assert.equal(first!.target, '/?q=1');
    assert.equal(first!.protocol, 'HTTP/1.1');
    assert.equal(first!.status, 200);
    assert.equal(first!.bytes, Buffer.byteLength(ok.body));
    assert.equal(typeof first!.duration_ms, 'number');
    assert.equal(first!.user_agent, 'probe/1.0');
    assert.equal(first!.subject, null);
    assert.equal(first!.worker, 0);
    assert.equal(first!.completed, true);
    assert.equal(second!.method, 'POST');
    assert.equal(second!.routed_method, 'DELETE');
    assert.equal(second!.user_agent, 'agent/ü');
    assert.equal(second!.status, 404);
    assert.equal(second!.referer, 'https://example.com/');
    assert.equal(second!.request_id, missing.headers['x-request-id']);
  });
});

describe('the access log and the parser\'s refusals', async () => {
  const logDir = await mkdtemp(join(tmpdir(), 'access-'));
  const service = await startTestService({ LOG_DIR: logDir });

  it('writes a line for a request the parser refuses, with the id its answer carries', async () => {
    const raw = await sendRaw(service.url, 'GET / HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n');
    assert.match(raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const id = /\r\nX-Request-Id: ([0-9a-f]{32})\r\n/.exec(raw)?.[1];
    assert.ok(id, raw);
    await service.stop();
    const lines = readAccessLog(logDir);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.request_id, id);
    assert.equal(lines[0]!.status, 400);
    assert.equal(lines[0]!.method, '-');
    assert.equal(lines[0]!.protocol, '-');
  });
});

/** The test CA of test/fixtures/tls (README.md there); the service's certificate names 127.0.0.1. */
const TEST_CA = readFileSync('test/fixtures/tls/ca.pem', 'utf8');

/** The status of one GET on a new h2 connection to `baseUrl`. */
async function getOverH2(baseUrl: string, path: string): Promise<number> {
  const session = http2.connect(baseUrl, { ca: TEST_CA });
  try {
    const stream = session.request({ ':method': 'GET', ':path': path });
    const [head] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
    stream.resume();
    await once(stream, 'end');
    return Number(head[':status']);
  } finally {
    session.close();
  }
}

/** The status of one GET over HTTP/1.1 on a new TLS connection. */
async function getOverHttps(baseUrl: string, path: string): Promise<number> {
  const req = https.get(`${baseUrl}${path}`, { ca: TEST_CA, agent: false });
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.resume();
  await once(res, 'end');
  return res.statusCode ?? 0;
}

/** What the service answers on a new TLS connection (HTTP/1 by ALPN) to `text`, sent as it is, once it closes. */
async function sendOverTls(baseUrl: string, text: string): Promise<string> {
  const socket = tls.connect({ host: '127.0.0.1', port: Number(new URL(baseUrl).port), ca: TEST_CA, ALPNProtocols: ['http/1.1'] });
  await once(socket, 'secureConnect');
  socket.end(text);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('latin1');
}

describe('the access log\'s protocol, over TLS with h2 by ALPN', async () => {
  const logDir = await mkdtemp(join(tmpdir(), 'access-'));
  const service = await startTestService({
    LOG_DIR: logDir, TLS_CERT: 'test/fixtures/tls/localhost-chain.pem', TLS_KEY: 'test/fixtures/tls/localhost.key',
  });

  it('says HTTP/2 for a stream of an h2 connection, HTTP/1.1 and HTTP/1.0 for HTTP/1 requests, as sent for another version', async () => {
    assert.match(service.url, /^https:\/\//);
    assert.equal(await getOverH2(service.url, '/?via=h2'), 200);
    assert.equal(await getOverHttps(service.url, '/?via=http1.1'), 200);
    assert.match(await sendOverTls(service.url, 'GET /?via=http1.0 HTTP/1.0\r\nHost: localhost\r\n\r\n'), /^HTTP\/1\.1 200 /);
    // Node's HTTP/1 parser takes an `HTTP/2.0` request line; it is no h2 stream, and is refused.
    assert.match(await sendOverTls(service.url, 'GET /?via=h1-claiming-2.0 HTTP/2.0\r\nHost: localhost\r\n\r\n'), /^HTTP\/1\.1 400 /);
    await service.stop();
    const protocols = Object.fromEntries(readAccessLog(logDir).map((line) => [line.target, line.protocol]));
    assert.deepEqual(protocols, {
      '/?via=h2': 'HTTP/2',
      '/?via=http1.1': 'HTTP/1.1',
      '/?via=http1.0': 'HTTP/1.0',
      '/?via=h1-claiming-2.0': 'HTTP/2.0',
    });
  });
});

describe('ACCESS_LOG=0', async () => {
  const logDir = await mkdtemp(join(tmpdir(), 'access-'));
  const service = await startTestService({ LOG_DIR: logDir, ACCESS_LOG: '0' });

  it('writes no access file, and still gives every answer its id', async () => {
    const res = await send(service.url, 'GET', '/nowhere');
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{32}$/);
    await service.stop();
    assert.deepEqual(readAccessLog(logDir), []);
  });
});

describe('the operator\'s listener of one process', async () => {
  const logDir = await mkdtemp(join(tmpdir(), 'admin-'));
  const service = await startTestService({ LOG_DIR: logDir, ADMIN_PORT: '0' });
  const admin = service.adminUrl!;

  it('listens apart from the service, whose routing stays as observed', async () => {
    assert.match(admin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(admin, service.url);
    assert.equal((await send(service.url, 'GET', '/healthz')).status, 404);
    assert.equal((await send(service.url, 'GET', '/metrics')).status, 404);
  });

  it('answers the probes without writing a log line of either kind', async () => {
    // The access log writes in the order requests end, after a gathering delay: a request to the
    // service before the probes and one after them, each waited for in the file, bound what the
    // probes could have written.
    const logged = (target: string) => eventually(`${target} in the access log`, () => readAccessLog(logDir), (lines) => lines.some((l) => l.target === target));
    await send(service.url, 'GET', '/?probes=before');
    const before = (await logged('/?probes=before')).length;
    service.log.clear();
    for (let i = 0; i < 5; i++) {
      assert.equal((await send(admin, 'GET', '/healthz')).status, 200);
      assert.equal((await send(admin, 'GET', '/readyz')).status, 200);
    }
    await send(service.url, 'GET', '/?probes=after');
    const lines = await logged('/?probes=after');
    assert.deepEqual(lines.slice(before).map((l) => l.target), ['/?probes=after']);
    assert.deepEqual(service.log.lines, []);
  });

  it('counts requests by method and status, with their durations, connections and log lines', async () => {
    const page0 = (await send(admin, 'GET', '/metrics')).body;
    const before = sample(page0, 'http_requests_total{method="GET",status="404"}') ?? 0;
    for (let i = 0; i < 3; i++) await send(service.url, 'GET', `/nowhere-${i}`);
    await send(service.url, 'PROPFIND', '/');
    const page = (await send(admin, 'GET', '/metrics')).body;
    assert.equal(sample(page, 'http_requests_total{method="GET",status="404"}'), before + 3);
    assert.equal(sample(page, 'http_requests_total{method="other",status="405"}'), 1, 'a method no one knows is counted as other');
    assert.ok((sample(page, 'http_request_duration_seconds_count') ?? 0) >= before + 4);
    assert.ok(sample(page, 'http_connections_open') !== undefined);
    assert.ok((sample(page, 'process_resident_memory_bytes') ?? 0) > 1e6);
    assert.ok(sample(page, 'process_cpu_seconds_total')! > 0);
    assert.match(page, /^# TYPE nodejs_eventloop_delay_seconds /m);
    assert.match(page, /^log_lines_written_total\{file="access"\} \d+$/m);
    for (const family of ['poster_renders_total', 'poster_render_duration_seconds', 'poster_queue_depth', 'poster_store_bytes', 'rate_limited_total', 'jwt_cache_hits_total']) {
      assert.match(page, new RegExp(`^# TYPE ${family} `, 'm'), family);
    }
  });

  it('is not ready while the log directory takes no writes, and says why', async () => {
    const blocked = await mkdtemp(join(tmpdir(), 'admin-'));
    writeFileSync(join(blocked, 'file'), '');
    const other = await startTestService({ LOG_DIR: join(blocked, 'file', 'log'), ADMIN_PORT: '0' });
    const res = await send(other.adminUrl!, 'GET', '/readyz');
    assert.equal(res.status, 503);
    const report = JSON.parse(res.body) as { ready: boolean; checks: Record<string, string> };
    assert.equal(report.ready, false);
    assert.match(report.checks.log_dir!, /takes no writes \(ENOTDIR\)/);
    assert.equal(report.checks.settings_store, 'ok');
    await other.stop();
  });

  it('is not ready from the moment the service stops, while answers in flight finish', async () => {
    const { port } = new URL(service.url);
    // A request whose body never ends keeps the stop waiting for it.
    const socket = net.connect(Number(port), '127.0.0.1');
    const arrived = once(service.server, 'request');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc');
    await arrived; // the request is in flight before the stop begins
    const stopped = service.stop();
    const res = await send(admin, 'GET', '/readyz');
    assert.equal(res.status, 503);
    assert.match(JSON.parse(res.body).checks.stopping, /stopping/);
    assert.equal((await send(admin, 'GET', '/healthz')).status, 200, 'alive while it drains');
    socket.destroy();
    await stopped;
    await assert.rejects(send(admin, 'GET', '/healthz'), 'the listener closes with the service');
  });
});

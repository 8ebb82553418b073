/**
 * Deep pipelines (docs/http.md, "Limits"): seeded runs of thousands of requests on one connection, from a client
 * that reads nothing for a while or reads slowly, against the real program. While the client is
 * not reading, the program's cost is measured from outside (/proc: resident memory, open
 * descriptors) and another client's GET / is timed; then the answers of the requests the
 * program admitted (16 running, 32 waiting) must arrive, in request order, each the answer its
 * request calls for, and the connection must close. Then fairness: hundreds of such connections
 * at once, silent or reading a trickle, for static files or not, while a probe client times its
 * own GET /.
 *
 * Settings (environment): FUZZ_SEED (default fixed), FUZZ_PIPELINES (cases, default 6),
 * FUZZ_CASE (replay one case index).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { samplePeak, timeGetRoot, usageOf } from '../helpers/process-usage.js';
import { parseResponseStream, type ParsedStream } from './response-stream.js';
import { parseSeed, Random } from './rng.js';
import { startFuzzService, type FuzzService } from './service.js';

const SEED = parseSeed(process.env.FUZZ_SEED);
const CASES = Number(process.env.FUZZ_PIPELINES ?? 6);
const ONLY_CASE = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
const MiB = 1024 * 1024;
/**
 * What the whole program may grow by during one case: twice the 16 MiB a connection that never
 * reads may cost (test/http/server-pipelining.test.ts holds that one exactly). Here thousands of
 * requests of every kind run, and the allocator and the collector add their own growth: one case
 * grew by 16.5 MiB in CI with the access log on, and 7.9 MiB with it off on a quiet machine, while
 * the failure this guards against cost hundreds of MiB.
 */
const MAX_CONNECTION_BYTES = 32 * MiB;
/**
 * The program runs with V8's young generation held at 1 MiB a semi-space. On Node 24 V8 grows it
 * under allocation up to some 50 MiB of resident memory that holds nothing alive (one case here
 * grew by 57 MiB with the default, 4.7 MiB with this), which would measure the collector's
 * sizing instead of what a connection keeps.
 */
const PROGRAM_NODE_ARGS = ['--max-semi-space-size=1'];
const MAX_CONNECTION_FDS = 64;
/** Another client's GET / while a pipeline waits: none slower than this on a shared machine. */
const SLOWEST_PROBE_MS = 1_000;
/** How long a non-reading client reads nothing. */
const SILENT_MS = 1_500;
/** Every answer must have arrived this long after the client starts reading. */
const READ_DEADLINE_MS = 60_000;
/** Pipelining connections at once in the fairness case, each silent or reading a trickle. */
const FAIRNESS_CONNECTIONS = 100;
/**
 * Another client's GET / meanwhile: none slower than this. The goal is half a second; what
 * stands in the way is Node's own work per request it parses (the note in bench/RESULTS.md,
 * "Pipelining floods"), so this holds what the service does today on a shared machine.
 */
const FAIRNESS_SLOWEST_PROBE_MS = 3_000;
/** How long the probe client times its GET / while they are open. */
const FAIRNESS_PROBING_MS = 3_000;
/** What the whole program may grow by while they are open (bench/RESULTS.md, "Pipelining floods"). */
const FAIRNESS_MAX_GROWTH = 350 * MiB;
/** Requests of a connection answered when it pipelines past the bound: 16 running and 32 waiting. */
const ADMITTED = 48;
/** The body of `hello.txt` in the fuzz PUBLIC_DIR. */
const HELLO = 'hello, fuzz\n';

/** A request of the menu: its bytes, its wire method, the status it must get, its body if known. */
interface MenuItem {
  readonly text: string;
  readonly method: string;
  readonly status: number;
  readonly body?: string;
  readonly bodyLength?: number;
}

const req = (method: string, target: string, extra = '') => `${method} ${target} HTTP/1.1\r\nHost: fuzz\r\n${extra}\r\n`;

/** What a pipeline is made of, with weights: cheap answers mostly, a few large bodies. */
const MENU: readonly (readonly [number, MenuItem])[] = [
  [30, { text: req('GET', '/'), method: 'GET', status: 200 }],
  [10, { text: req('HEAD', '/'), method: 'HEAD', status: 200, bodyLength: 0 }],
  [5, { text: req('OPTIONS', '/'), method: 'OPTIONS', status: 204, bodyLength: 0 }],
  [5, { text: req('DELETE', '/'), method: 'DELETE', status: 405 }],
  [20, { text: req('GET', '/static/hello.txt'), method: 'GET', status: 200, body: HELLO }],
  [5, { text: req('HEAD', '/static/big.bin'), method: 'HEAD', status: 200, bodyLength: 0 }],
  [5, { text: req('GET', '/static/big.bin', 'Range: bytes=100-199\r\n'), method: 'GET', status: 206, bodyLength: 100 }],
  [1, { text: req('GET', '/static/big.bin'), method: 'GET', status: 200, bodyLength: 200 * 1024 }],
  [10, { text: req('GET', '/nowhere'), method: 'GET', status: 404 }],
  [3, { text: req('GET', '/static/.hidden'), method: 'GET', status: 404 }],
  [3, { text: req('POST', '/', 'Content-Type: text/plain\r\nContent-Length: 5\r\n') + 'x=1&y', method: 'POST', status: 405 }],
  [3, { text: req('GET', '/', 'Expect: 100-continue\r\n'), method: 'GET', status: 200 }],
];

type Reader = 'silent-then-all' | 'slow';

interface PipelineCase {
  readonly index: number;
  readonly reader: Reader;
  readonly items: readonly MenuItem[];
  /** The slow reader's pause after each chunk it reads. */
  readonly slowPauseMs: number;
}

function generatePipeline(seed: number, index: number): PipelineCase {
  const r = new Random(seed, index);
  const depth = r.int(1_000, 6_000);
  const items = Array.from({ length: depth }, () => r.weighted(MENU));
  return { index, reader: r.pick<Reader>(['silent-then-all', 'slow']), items, slowPauseMs: r.int(1, 20) };
}

/** How often the bytes read so far are parsed to see whether every answer is in. */
const PARSE_EVERY_MS = 200;

/** Reads until every answer is whole or the connection closes: as fast as it comes, or one chunk per `pauseMs`. */
async function readAll(socket: net.Socket, methods: readonly string[], pauseMs?: number): Promise<ParsedStream & { closed: boolean }> {
  const chunks: Buffer[] = [];
  const deadline = performance.now() + READ_DEADLINE_MS;
  let closed = false;
  socket.once('close', () => (closed = true));
  let parsedAt = 0;
  for (;;) {
    const chunk = socket.read() as Buffer | null;
    if (chunk !== null) {
      chunks.push(chunk);
      if (pauseMs !== undefined) await sleep(pauseMs);
    }
    const now = performance.now();
    if (closed || now > deadline || (chunk === null && now - parsedAt >= PARSE_EVERY_MS)) {
      parsedAt = now;
      const parsed = parseResponseStream(Buffer.concat(chunks), methods, closed);
      if (parsed.responses.length >= methods.length || closed || parsed.error !== undefined || now > deadline) return { ...parsed, closed };
    }
    if (chunk === null) await Promise.race([once(socket, 'readable'), sleep(PARSE_EVERY_MS)]);
  }
}

/**
 * What is wrong with the answers to `items`, or undefined: each request answered as it calls
 * for, in order, up to the 48 admitted at least; past the bound, the rest of what the program
 * read refused with 503 and the connection closed.
 */
function checkAnswers(items: readonly MenuItem[], parsed: ParsedStream, closed: boolean): string | undefined {
  if (parsed.error !== undefined) return `not HTTP after ${parsed.responses.length} answers: ${parsed.error}`;
  const answered = parsed.responses.length;
  const refusedFrom = parsed.responses.findIndex((res) => res.status === 503);
  const served = refusedFrom < 0 ? answered : refusedFrom;
  if (items.length <= ADMITTED && answered !== items.length) return `${answered} answers to ${items.length} requests`;
  if (items.length > ADMITTED && (served < ADMITTED || (!closed && answered < items.length))) {
    return `${served} answers and ${answered - served} refusals to ${items.length} requests, the connection ${closed ? 'closed' : 'still open'}`;
  }
  if (parsed.responses.slice(served).some((res) => res.status !== 503)) return `an answer after the first refusal (${served}) is not a refusal`;
  for (let i = 0; i < served; i++) {
    const item = items[i]!;
    const res = parsed.responses[i]!;
    const name = `answer ${i} to ${JSON.stringify(item.text.split('\r\n')[0])}`;
    if (res.status !== item.status) return `${name}: status ${res.status}, expected ${item.status}`;
    if (item.body !== undefined && res.body.toString('latin1') !== item.body) return `${name}: wrong body`;
    if (item.bodyLength !== undefined && res.body.length !== item.bodyLength) return `${name}: ${res.body.length} body bytes, expected ${item.bodyLength}`;
  }
  return undefined;
}

/** Sends `items` on a new connection and reads every answer at once. */
async function exchange(port: number, items: readonly MenuItem[], pauseMs?: number): Promise<ParsedStream & { closed: boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(items.map((item) => item.text).join(''));
  const parsed = await readAll(socket, items.map((item) => item.method), pauseMs);
  socket.destroy();
  return parsed;
}

/**
 * Brings the program to a running service's state before anything is measured: every path of
 * the menu compiled and its heap grown to its working size, as after a while of real traffic.
 */
async function warmUp(port: number): Promise<void> {
  const r = new Random(0, -2);
  for (let round = 0; round < 150; round++) {
    const items = Array.from({ length: ADMITTED }, () => r.weighted(MENU));
    const parsed = await exchange(port, items);
    const wrong = checkAnswers(items, parsed, parsed.closed);
    if (wrong !== undefined) throw new Error(`warm-up: ${wrong}`);
  }
}

/** The program in prod, stopped after the test, warmed up; with its process id, to measure it. */
async function startWarmService(): Promise<{ service: FuzzService; pid: number }> {
  const service = await startFuzzService('prod', SEED, [], PROGRAM_NODE_ARGS);
  after(async () => {
    service.program.child.kill('SIGTERM');
    await service.program.exited;
  });
  await warmUp(service.port);
  return { service, pid: service.program.child.pid! };
}

describe('HTTP fuzz: deep pipelines', () => {
  it(`answers the pipelined requests it admits in order at a bounded cost, then closes (seed ${SEED})`, { timeout: (CASES + 2) * 90_000 }, async () => {
    const { service, pid } = await startWarmService();
    const failures: string[] = [];
    for (let index = 0; index < CASES; index++) {
      if (ONLY_CASE !== undefined && index !== ONLY_CASE) continue;
      const fuzzCase = generatePipeline(SEED, index);
      const label = `case ${index} (${fuzzCase.reader}, ${fuzzCase.items.length} requests; FUZZ_SEED=${SEED} FUZZ_CASE=${index})`;
      const base = usageOf(pid);
      const peak = samplePeak(pid);
      const socket = net.connect(service.port, '127.0.0.1');
      socket.pause();
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(fuzzCase.items.map((item) => item.text).join(''));
      const probes: number[] = [];
      if (fuzzCase.reader === 'silent-then-all') {
        const until = performance.now() + SILENT_MS;
        while (performance.now() < until) {
          probes.push(await timeGetRoot(service.port));
          await sleep(100);
        }
      }
      const reading = readAll(socket, fuzzCase.items.map((item) => item.method), fuzzCase.reader === 'slow' ? fuzzCase.slowPauseMs : undefined);
      if (fuzzCase.reader === 'slow') probes.push(await timeGetRoot(service.port), await timeGetRoot(service.port));
      const parsed = await reading;
      const highest = peak.stop();
      socket.destroy();
      const grew = highest.rssBytes - base.rssBytes;
      const fds = highest.fds - base.fds;
      const slowest = Math.max(...probes);
      process.stdout.write(`# ${label}: +${(grew / MiB).toFixed(1)} MiB, +${fds} descriptors, slowest GET / ${slowest.toFixed(0)} ms\n`);
      const wrong = checkAnswers(fuzzCase.items, parsed, parsed.closed);
      if (wrong !== undefined) failures.push(`${label}: ${wrong}`);
      if (grew > MAX_CONNECTION_BYTES) failures.push(`${label}: the program grew by ${(grew / MiB).toFixed(1)} MiB`);
      if (fds > MAX_CONNECTION_FDS) failures.push(`${label}: the program opened ${fds} more descriptors`);
      if (slowest > SLOWEST_PROBE_MS) failures.push(`${label}: another client's GET / took ${slowest.toFixed(0)} ms`);
      if (service.program.child.exitCode !== null) {
        failures.push(`${label}: the program exited (${service.program.child.exitCode})`);
        break;
      }
    }
    assert.deepEqual(failures, []);
  });

  it(`keeps the GET / of another client prompt while hundreds of connections pipeline and read nothing or a trickle (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const { service, pid } = await startWarmService();
    const r = new Random(SEED, -3);
    const base = usageOf(pid);
    const peak = samplePeak(pid);
    const hogs: { socket: net.Socket; trickle: boolean }[] = [];
    for (let i = 0; i < FAIRNESS_CONNECTIONS; i++) {
      const target = r.pick(['/', '/static/big.bin', '/static/hello.txt', '/nowhere']);
      const socket = net.connect(service.port, '127.0.0.1');
      socket.pause();
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(req('GET', target).repeat(r.int(50, 300)));
      hogs.push({ socket, trickle: r.int(0, 1) === 1 });
    }
    const trickle = setInterval(() => hogs.forEach((hog) => hog.trickle && hog.socket.read(16 * 1024)), 100);
    const probes: number[] = [];
    const until = performance.now() + FAIRNESS_PROBING_MS;
    try {
      while (performance.now() < until) {
        probes.push(await timeGetRoot(service.port));
        await sleep(100);
      }
    } finally {
      clearInterval(trickle);
    }
    const highest = peak.stop();
    hogs.forEach((hog) => hog.socket.destroy());
    const grew = highest.rssBytes - base.rssBytes;
    const slowest = Math.max(...probes);
    const figures = `${FAIRNESS_CONNECTIONS} connections: slowest GET / of ${probes.length} ${slowest.toFixed(0)} ms, the program grew by ${(grew / MiB).toFixed(1)} MiB`;
    process.stdout.write(`# ${figures}\n`);
    assert.ok(slowest <= FAIRNESS_SLOWEST_PROBE_MS, figures);
    assert.ok(grew <= FAIRNESS_MAX_GROWTH, figures);
    assert.equal(service.program.child.exitCode, null, 'the program still runs');
  });
});

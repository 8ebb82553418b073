/**
 * What one pipelining connection may cost (docs/http.md, "Limits"), measured from outside the program as an
 * operator sees it (/proc: resident memory, open descriptors), and what other clients see
 * meanwhile; the process-wide bound on files open for static answers, under a descriptor limit.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runServerProgram } from '../helpers/service.js';
import { serviceTarget } from '../helpers/target.js';
import { samplePeak, timeGetRoot, usageOf } from '../helpers/process-usage.js';

const MiB = 1024 * 1024;
/** The bound on one connection that pipelines without reading (docs/http.md, "Limits"). */
const MAX_CONNECTION_BYTES = 16 * MiB;
const MAX_CONNECTION_FDS = 64;
/** The goal for another client's GET / meanwhile (the median: this machine is shared). */
const PROMPT_MS = 50;
/** No GET / may wait longer than this, even on a busy machine (unbounded, it took seconds). */
const SLOWEST_MS = 1_000;
/** How much each attacking connection sends: 256 KiB of back-to-back requests. */
const PIPELINED_BYTES = 256 * 1024;

/** A temp directory removed after the test file. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Deterministic bytes, different for every `seed`. */
function bytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 17 + (i >> 8)) & 0xff;
  return out;
}

/** `count` copies of a GET for `path`, back to back. */
function pipelined(path: string, count: number): Buffer {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(count), 'latin1');
}

/** As many GETs for `path` as fit in `size` bytes. */
function pipelinedBytes(path: string, size: number): Buffer {
  return pipelined(path, Math.floor(size / `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`.length));
}

/** Opens a connection that sends `text` and does not read until told to. */
async function nonReadingClient(port: number, text: Buffer): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(text);
  return socket;
}

/** One answer read off a raw connection: its status, its head as sent, its body. */
interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: Buffer;
}

/**
 * Reads until `count` answers are whole (each body as framed by Content-Length), or, with
 * `untilClose`, every answer until the server closes the connection.
 */
async function readAnswers(socket: net.Socket, count: number, timeoutMs = 60_000, untilClose = false): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  let pending: Buffer = Buffer.alloc(0);
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${answers.length} of ${count} answers within ${timeoutMs} ms`)), timeoutMs);
    const take = (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd < 0) break;
        const head = pending.subarray(0, headEnd).toString('latin1');
        const lengthLine = head.split('\r\n').find((l) => l.toLowerCase().startsWith('content-length:'));
        const length = Number(lengthLine?.slice('content-length:'.length).trim() ?? 0);
        if (pending.length < headEnd + 4 + length) break;
        answers.push({ status: Number(head.slice(9, 12)), head, body: Buffer.from(pending.subarray(headEnd + 4, headEnd + 4 + length)) });
        pending = pending.subarray(headEnd + 4 + length);
      }
      if (answers.length >= count && !untilClose) {
        clearTimeout(timer);
        socket.off('data', take);
        resolve();
      }
    };
    socket.on('data', take);
    socket.once('close', () => {
      clearTimeout(timer);
      if (untilClose) resolve();
      else reject(new Error(`closed after ${answers.length} of ${count} answers`));
    });
  });
  socket.resume();
  await done;
  return answers;
}

/** Requests of one connection answered at most when it pipelines without reading: 16 running, 32 waiting. */
const ADMITTED = 48;

/** Warms the program's code paths as a running service's are: pipelined GET / and static. */
async function warmUp(port: number, staticPath: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    for (const [path, count] of [['/', ADMITTED], [staticPath, 20]] as const) {
      const socket = await nonReadingClient(port, pipelined(path, count));
      await readAnswers(socket, count);
      socket.destroy();
    }
  }
}

describe('a connection that pipelines without reading', () => {
  const publicDir = join(tempDir('pipelining-'), 'public');
  const file = bytes(64 * 1024, 1);
  mkdirSync(publicDir);
  writeFileSync(join(publicDir, 'f.bin'), file);
  for (const n of [1, 2, 3]) writeFileSync(join(publicDir, `s${n}.txt`), bytes(100 * n, n + 10));
  const program = runServerProgram({ PUBLIC_DIR: publicDir });
  after(async () => {
    program.child.kill('SIGTERM');
    await program.exited;
  });
  let port = 0;
  let pid = 0;

  before(async () => {
    port = Number(new URL(await program.listening).port);
    pid = program.child.pid!;
    await warmUp(port, '/static/f.bin');
  });

  it('costs at most 16 MiB and 64 descriptors however many static requests it sends, and GET / stays prompt', { timeout: 120_000 }, async () => {
    await sleep(300);
    const base = usageOf(pid);
    const peak = samplePeak(pid);
    const text = pipelinedBytes('/static/f.bin', PIPELINED_BYTES);
    const attackers = await Promise.all([1, 2, 3, 4].map(() => nonReadingClient(port, text)));
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      await sleep(100);
      latencies.push(await timeGetRoot(port));
    }
    const highest = peak.stop();
    for (const socket of attackers) socket.destroy();
    const perConnectionBytes = (highest.rssBytes - base.rssBytes) / attackers.length;
    const perConnectionFds = (highest.fds - base.fds) / attackers.length;
    const sorted = [...latencies].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1]!;
    const slowest = sorted[sorted.length - 1]!;
    const figures = `${attackers.length} connections of ${Math.round(text.length / 1024)} KiB of GET /static/f.bin (64 KiB) each: ` +
      `+${(perConnectionBytes / MiB).toFixed(1)} MiB and +${perConnectionFds.toFixed(0)} descriptors each; ` +
      `another client's GET /: median ${median.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms`;
    process.stdout.write(`# ${figures}\n`);
    assert.ok(perConnectionBytes <= MAX_CONNECTION_BYTES, figures);
    assert.ok(perConnectionFds <= MAX_CONNECTION_FDS, figures);
    assert.ok(median < PROMPT_MS, figures);
    assert.ok(slowest < SLOWEST_MS, figures);
  });

  it('answers the 48 requests it admitted, in order, with their bytes, refuses the rest it read with 503, and then closes', { timeout: 120_000 }, async () => {
    const paths = ['/static/s1.txt', '/static/s2.txt', '/', '/static/s3.txt', '/nowhere'];
    const count = 3_000;
    const order = Array.from({ length: count }, (_, i) => paths[(i * 7) % paths.length]!);
    const socket = await nonReadingClient(port, Buffer.from(order.map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''), 'latin1'));
    await sleep(500); // nothing read for a while: the answers wait for their client
    const answers = await readAnswers(socket, count, 60_000, true);
    socket.destroy();
    assert.ok(answers.length > ADMITTED && answers.length < count, `${answers.length} answers`);
    answers.slice(0, ADMITTED).forEach((answer, i) => {
      const path = order[i]!;
      const expected = path === '/' ? 200 : path === '/nowhere' ? 404 : 200;
      assert.equal(answer.status, expected, `answer ${i} (${path})`);
      if (path.startsWith('/static/s')) {
        const n = Number(path.slice('/static/s'.length, -'.txt'.length));
        assert.deepEqual(answer.body, bytes(100 * n, n + 10), `answer ${i} (${path}) body`);
      }
    });
    answers.slice(ADMITTED).forEach((answer, i) => {
      assert.equal(answer.status, 503, `answer ${ADMITTED + i}`);
      assert.match(answer.head, /^retry-after: 1$/im);
    });
  });

  it('answers a client that pipelines within the bound, all of its requests, on one connection that stays open', { timeout: 60_000 }, async () => {
    const socket = await nonReadingClient(port, pipelined('/', ADMITTED));
    const answers = await readAnswers(socket, ADMITTED);
    assert.equal(answers.length, ADMITTED);
    assert.ok(answers.every((a) => a.status === 200 && !/^connection: close$/im.test(a.head)));
    assert.equal(socket.destroyed, false);
    socket.destroy();
  });
});

describe('files open for static answers across the process', () => {
  /** A descriptor limit above the service's bound and its sockets, below what it would open unbounded. */
  const DESCRIPTOR_LIMIT = 400;
  const CONNECTIONS = 40;
  const REQUESTS_EACH = 25;

  it('stay within the bound when many clients ask for files at once: every answer a 200 with the right bytes, none a 500', { timeout: 120_000 }, async () => {
    const root = tempDir('static-open-');
    const publicDir = join(root, 'public');
    mkdirSync(publicDir);
    // Larger than one read, so each answer streams and keeps its file open while it waits.
    const file = bytes(96 * 1024, 7);
    writeFileSync(join(publicDir, 'big.bin'), file);
    const varDir = join(root, 'var');
    mkdirSync(varDir);
    const child = spawn('sh', ['-c', `ulimit -n ${DESCRIPTOR_LIMIT} && exec "$@"`, 'sh', process.execPath, '--import', 'tsx', serviceTarget().serverEntry], {
      env: { PATH: process.env.PATH, APP_ENV: 'test', PORT: '0', VAR_DIR: varDir, PUBLIC_DIR: publicDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    after(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.resume();
    while (!stdout.includes('listening on ')) await once(child.stdout, 'data');
    const port = Number(new URL(stdout.slice(stdout.indexOf('http://')).split('\n')[0]!).port);

    const text = pipelined('/static/big.bin', REQUESTS_EACH);
    const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => nonReadingClient(port, text)));
    await sleep(500); // every request is in; the answers wait for their clients
    const answers = await Promise.all(clients.map((socket) => readAnswers(socket, REQUESTS_EACH)));
    for (const socket of clients) socket.destroy();
    const statuses = new Map<number, number>();
    answers.flat().forEach(({ status }) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
    assert.deepEqual([...statuses], [[200, CONNECTIONS * REQUESTS_EACH]], `statuses: ${JSON.stringify([...statuses])}`);
    answers.forEach((list, c) => list.forEach(({ body }, i) => assert.ok(body.equals(file), `connection ${c} answer ${i}: wrong bytes`)));
  });
});

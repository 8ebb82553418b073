/**
 * What a hostile HTTP/2 client may cost the program (the bounds are H2_BOUNDS in
 * src/http/secure-server.ts), measured from outside as an operator sees it. The program runs in
 * prod over https with the access log on. While an attack runs, another client's GET / over https
 * is timed every PROBE_EVERY_MS, on HTTP/1.1 and on h2, each on a new connection. A case holds
 * when no such GET / took a second or more, the program grew by less than 100 MiB (VmRSS, its
 * peak over its base), and it still runs and answers normally afterwards.
 *
 * The attacks: 10,000 streams opened and cancelled at once on four connections (rapid reset);
 * requests with 2,000 headers, or with one 17 KiB header, on connection after connection for
 * ATTACK_MS; ten connections that set a zero window, ask for 1,000 streams each and hold them for
 * ATTACK_MS; SETTINGS or PING frames written without reading a byte, on connection after
 * connection for ATTACK_MS.
 *
 * Measured 2026-11-28 on a shared two-core machine at rest, three runs, Node 24 | Node 22 (the
 * slowest GET / of h1 and h2; the most the program grew; what the abusive side saw):
 * - rapid reset: 951 | 1,482 ms, +60 | +50 MiB; 1.5 to 4.5 s on Node 24 with the machine at a load
 *   of 10. Each connection got GOAWAY INTERNAL_ERROR, last stream 2001 to 2067 (its burst of 1,000
 *   resets and a few more of the same read), and no response; the app ran, and logged, every one
 *   of the 4,000 streams taken in.
 * - 2,000 headers: 118 | 41 ms, +4.5 | +4.2 MiB; every request RST_STREAM ENHANCE_YOUR_CALM, the
 *   first on a connection too; the connection goes on (a normal request after them: 200).
 * - a 17 KiB header: 82 | 28 ms, +14 | +12 MiB; the first request of every connection answered
 *   200, the later ones RST_STREAM ENHANCE_YOUR_CALM. The 16 KiB bound is a setting, in force once
 *   the client has acknowledged it; a request sent before that (any client's first) is held to
 *   Node's own limit: a 123,176-byte header list was answered, a 153,970-byte one ended the
 *   connection (GOAWAY INTERNAL_ERROR).
 * - zero window: 461 | 379 ms, +30 | +23 MiB; on each connection 100 responses (their heads: no
 *   DATA), 900 RST_STREAM REFUSED_STREAM, no GOAWAY within ATTACK_MS.
 * - SETTINGS flood: 67 | 63 ms, +6 | +3 MiB; each connection closed by the server after 6,000 to
 *   20,000 frames (the client's next write fails with EPIPE; it read nothing, so saw no GOAWAY).
 * - PING flood: 95 | 102 ms, +30 | +34 MiB; each connection closed after 5,000 to 28,000 frames.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  addFrames, describeFrames, getFields, getOverH2, noFrames, pingFrame, RawH2Connection, requestFrames, requestOutcome, rstStreamFrame, SETTING,
  settingsFrame, timeH2GetRoot, timeHttpsGetRoot, type ConnectionEnd, type ServerFrames,
} from '../helpers/h2-abuse.js';
import { samplePeak, usageOf } from '../helpers/process-usage.js';
import { runServerProgram } from '../helpers/service.js';

const MiB = 1024 * 1024;
const CA = readFileSync('test/fixtures/tls/ca.pem', 'utf8');
/** The goal for another client's GET / while an attack runs: none slower, h1 or h2. */
const SLOWEST_PROBE_MS = 1_000;
/** The goal for what the whole program may grow by over one attack. */
const MAX_GROWTH_BYTES = 100 * MiB;
/** How long the attacks that go on until stopped go on. */
const ATTACK_MS = 3_000;
/** A probe (a GET / on h1 and one on h2, each on a new connection) starts this often, whether the last is answered or not. */
const PROBE_EVERY_MS = 50;
/** H2_BOUNDS.maxConcurrentStreams: streams open at once on one connection. */
const MAX_CONCURRENT_STREAMS = 100;
/** H2_BOUNDS.streamResetBurst: a connection's resets before the rate bound acts. */
const STREAM_RESET_BURST = 1_000;
/** CANCEL (RFC 9113 section 7), what a client that gives up on a stream sends. */
const CANCEL = 0x8;
/** The static file of the zero-window case: larger than any window, so its body must wait. */
const STATIC_FILE = Buffer.alloc(256 * 1024, 'h2 abuse ');

interface Program {
  readonly port: number;
  readonly pid: number;
  running(): boolean;
}

/**
 * The program in prod over https for the current suite: started and warmed up before its tests,
 * stopped after them (in hooks, so a suite that a name filter leaves out starts nothing).
 */
function useProgram(): Program {
  const state = { port: 0, pid: 0, running: () => false };
  let stop = async () => {};
  before(async () => {
    const root = mkdtempSync(join(tmpdir(), 'h2-abuse-'));
    mkdirSync(join(root, 'public'));
    writeFileSync(join(root, 'public', 'f.bin'), STATIC_FILE);
    const program = runServerProgram({
      APP_ENV: 'prod', APP_DEBUG: '0', ACCESS_LOG: '1', PUBLIC_DIR: join(root, 'public'),
      TLS_CERT: 'test/fixtures/tls/localhost-chain.pem', TLS_KEY: 'test/fixtures/tls/localhost.key',
    });
    stop = async () => {
      program.child.kill('SIGTERM');
      await program.exited;
      rmSync(root, { recursive: true, force: true });
    };
    state.port = Number(new URL(await program.listening).port);
    state.pid = program.child.pid!;
    state.running = () => program.child.exitCode === null && program.child.signalCode === null;
    // Both protocols' code paths compiled and the heap at its working size, as after a while of real traffic.
    for (let i = 0; i < 30; i++) await Promise.all([timeHttpsGetRoot(state.port, CA), timeH2GetRoot(state.port, CA), getOverH2(state.port, CA, '/static/f.bin')]);
  });
  after(() => stop());
  return state;
}

/** What one attack cost and what the other client saw meanwhile. */
interface Measured<T> {
  readonly seen: T;
  readonly probes: number;
  readonly slowestH1Ms: number;
  readonly slowestH2Ms: number;
  /** Probes not answered 200. */
  readonly failed: number;
  readonly growthBytes: number;
}

/** Runs `attack` while another client probes GET / every PROBE_EVERY_MS and the program's memory is sampled. */
async function measureDuring<T>(program: Program, attack: () => Promise<T>): Promise<Measured<T>> {
  await sleep(300); // the warm-up's garbage collected before the base is read
  const base = usageOf(program.pid);
  const peak = samplePeak(program.pid);
  let attacking = true;
  const seen = attack().finally(() => (attacking = false));
  const settled = seen.then(() => {}, () => {});
  const probes: Promise<[{ ms: number; status: number }, { ms: number; status: number }]>[] = [];
  while (attacking) {
    probes.push(Promise.all([timeHttpsGetRoot(program.port, CA), timeH2GetRoot(program.port, CA)]));
    await Promise.race([sleep(PROBE_EVERY_MS), settled]);
  }
  const answered = await Promise.all(probes);
  const growthBytes = peak.stop().rssBytes - base.rssBytes;
  return {
    seen: await seen,
    probes: answered.length,
    slowestH1Ms: Math.max(...answered.map(([h1]) => h1.ms)),
    slowestH2Ms: Math.max(...answered.map(([, h2]) => h2.ms)),
    failed: answered.flat().filter((probe) => probe.status !== 200).length,
    growthBytes,
  };
}

/** The figures of a run on one line, written to the test's output and used as the assertions' message. */
function report<T>(name: string, m: Measured<T>, seen: string): string {
  const figures = `${name}: ${m.probes} probes, slowest GET / h1 ${m.slowestH1Ms.toFixed(0)} ms, h2 ${m.slowestH2Ms.toFixed(0)} ms, ` +
    `${m.failed} not 200; the program grew by ${(m.growthBytes / MiB).toFixed(1)} MiB; the abusive side saw: ${seen}`;
  process.stdout.write(`# ${figures}\n`);
  return figures;
}

/** The goals every case holds: the other client served promptly, memory bounded, the program running and answering normally. */
async function assertHeld<T>(program: Program, m: Measured<T>, figures: string): Promise<void> {
  assert.ok(program.running(), `the program exited; ${figures}`);
  assert.equal(m.failed, 0, figures);
  assert.ok(m.slowestH1Ms < SLOWEST_PROBE_MS && m.slowestH2Ms < SLOWEST_PROBE_MS, figures);
  assert.ok(m.growthBytes < MAX_GROWTH_BYTES, figures);
  assert.equal((await timeHttpsGetRoot(program.port, CA)).status, 200, 'GET / over HTTP/1.1 afterwards');
  assert.equal((await timeH2GetRoot(program.port, CA)).status, 200, 'GET / over h2 afterwards');
}

/** Waits for the server to close `connection`, at most `ms`; then closes it. Undefined if the server had not. */
async function endOf(connection: RawH2Connection, ms: number): Promise<ConnectionEnd | undefined> {
  const end = await Promise.race([connection.ended, sleep(Math.max(0, ms)).then(() => undefined)]);
  connection.destroy();
  return end;
}

/** Ends of connections, counted by how each ended and what it saw: `3 x fin (0 responses, GOAWAY ...)`. */
function tally(ends: readonly (ConnectionEnd | undefined)[]): string {
  const counts = new Map<string, number>();
  for (const end of ends) {
    const key = end === undefined ? 'still open' : `${end.how} (${describeFrames(end.frames)})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${n} x ${key}`).join('; ');
}

/** `n x outcome` for each outcome, in a line. */
function counted(outcomes: ReadonlyMap<string, number>): string {
  return [...outcomes].map(([outcome, n]) => `${n} x ${outcome}`).join(', ');
}

describe('an h2 client that opens and at once cancels streams (rapid reset, CVE-2023-44487)', () => {
  const program = useProgram();
  /** Connections side by side, and the streams each opens and cancels: 10,000 in all. */
  const CONNECTIONS = 4;
  const STREAMS_EACH = 2_500;
  /** Streams written at once. */
  const BATCH = 100;

  /**
   * The connections, each writing HEADERS then RST_STREAM for stream after stream as fast as it
   * can until it has cancelled its share or the server closed it; then waiting for the server to
   * close it.
   */
  async function rapidReset(): Promise<{ streams: number; ends: (ConnectionEnd | undefined)[] }> {
    const fields = getFields('/');
    let streams = 0;
    const ends = await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      const connection = await RawH2Connection.open(program.port, CA);
      for (let id = 1; id < 2 * STREAMS_EACH && !connection.closed; ) {
        const batch: Buffer[] = [];
        for (let i = 0; i < BATCH; i++, id += 2) batch.push(requestFrames(id, fields), rstStreamFrame(id, CANCEL));
        await connection.send(Buffer.concat(batch));
        streams += BATCH;
      }
      return endOf(connection, 10_000);
    }));
    return { streams, ends };
  }

  it('cuts each connection after its burst of resets, and other clients are served promptly meanwhile', { timeout: 60_000 }, async () => {
    const m = await measureDuring(program, rapidReset);
    const figures = report('rapid reset', m, `${m.seen.streams} streams opened and cancelled on ${CONNECTIONS} connections: ${tally(m.seen.ends)}`);
    for (const end of m.seen.ends) {
      // Closed while the client still writes, a connection may see its reset before the GOAWAY it would have read.
      assert.ok(end !== undefined, `a connection the server did not close; ${figures}`);
      // The streams the server took in before it stopped: its burst, and the rate's share of the seconds since.
      assert.ok((end.frames.goaway?.lastStreamId ?? 0) <= 2 * 2 * STREAM_RESET_BURST, figures);
    }
    await assertHeld(program, m, figures);
  });
});

describe('an h2 client that sends requests over the header bounds', () => {
  const program = useProgram();
  /** Requests on each connection, one after another: the first goes before the client has acknowledged the server's SETTINGS. */
  const REQUESTS_EACH = 10;

  /** Sends requests with `headers` until ATTACK_MS is over, on new connections in turn; what each got, by its place on its connection. */
  async function oversized(headers: http2.OutgoingHttpHeaders): Promise<{ outcomes: Map<string, number>; sessions: number }> {
    const until = performance.now() + ATTACK_MS;
    const outcomes = new Map<string, number>();
    let sessions = 0;
    while (performance.now() < until) {
      const session = http2.connect(`https://127.0.0.1:${program.port}`, { ca: CA, servername: 'localhost' });
      session.on('error', () => {});
      sessions++;
      for (let i = 0; i < REQUESTS_EACH && !session.closed && !session.destroyed; i++) {
        const outcome = `${i === 0 ? 'first' : 'later'} on its connection: ${await requestOutcome(session, headers)}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      if (!session.closed && !session.destroyed) {
        const outcome = `a normal request after them: ${await requestOutcome(session, { ':path': '/' })}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      session.destroy();
    }
    return { outcomes, sessions };
  }

  for (const [name, headers] of [
    ['2,000 headers', Object.fromEntries([[':path', '/'], ...Array.from({ length: 2_000 }, (_, i) => [`x-field-${i}`, 'v'])])],
    ['a header list over 16 KiB', { ':path': '/', 'x-large': 'v'.repeat(17 * 1024) }],
  ] as const) {
    it(`refuses every request with ${name} (a reset or 431), the first on a connection too, and other clients are served promptly meanwhile`, { timeout: 60_000 }, async () => {
      const m = await measureDuring(program, () => oversized(headers));
      const figures = report(name, m, `${counted(m.seen.outcomes)} (${m.seen.sessions} connections)`);
      for (const outcome of m.seen.outcomes.keys()) {
        if (!outcome.startsWith('a normal request')) assert.match(outcome, /: (RST_STREAM \w+|status 431)$/, figures);
      }
      await assertHeld(program, m, figures);
    });
  }
});

describe('an h2 client that sets its window to zero and asks for more streams than it may', () => {
  const program = useProgram();
  /** Connections side by side, and the requests each sends at once: 100 may be held on each, 1,000 in all. */
  const CONNECTIONS = 10;
  const REQUESTS_EACH = 1_000;

  /** Opens the connections, each with SETTINGS_INITIAL_WINDOW_SIZE 0 and its requests (GET / and a static file in turn), and holds them for ATTACK_MS. */
  async function holdStreams(): Promise<ServerFrames[]> {
    const until = performance.now() + ATTACK_MS;
    const connections = await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      const connection = await RawH2Connection.open(program.port, CA, [[SETTING.INITIAL_WINDOW_SIZE, 0]]);
      const requests = Array.from({ length: REQUESTS_EACH }, (_, i) => requestFrames(2 * i + 1, getFields(i % 2 === 0 ? '/' : '/static/f.bin')));
      await connection.send(Buffer.concat(requests));
      return connection;
    }));
    await sleep(Math.max(0, until - performance.now()));
    for (const connection of connections) connection.destroy();
    return connections.map((connection) => connection.frames);
  }

  it('holds at most 100 streams a connection, refuses the rest, sends no body, and other clients are served promptly meanwhile', { timeout: 60_000 }, async () => {
    const m = await measureDuring(program, holdStreams);
    const total = noFrames();
    m.seen.forEach((frames) => addFrames(total, frames));
    const figures = report('zero window', m, `${CONNECTIONS} connections of ${REQUESTS_EACH} requests: ${describeFrames(total)}, ${total.dataBytes} body bytes`);
    for (const frames of m.seen) {
      const refused = (frames.resets.get('REFUSED_STREAM') ?? 0) + (frames.resets.get('ENHANCE_YOUR_CALM') ?? 0);
      assert.ok(frames.responses <= MAX_CONCURRENT_STREAMS, figures);
      assert.ok(refused >= REQUESTS_EACH - MAX_CONCURRENT_STREAMS || frames.goaway !== undefined, figures);
      assert.equal(frames.dataBytes, 0, `a body sent into a zero window; ${figures}`);
    }
    await assertHeld(program, m, figures);
    const file = await getOverH2(program.port, CA, '/static/f.bin');
    assert.equal(file.status, 200, 'the static file over h2 afterwards');
    assert.ok(file.body.equals(STATIC_FILE), 'the static file over h2 afterwards: its bytes');
  });
});

describe('an h2 client that floods control frames and reads nothing', () => {
  const program = useProgram();
  /** Frames a flooding connection writes at once. */
  const BATCH = 1_000;

  /** Connection after connection that writes `frameOf(n)` for n = 0, 1, … without reading a byte, for ATTACK_MS. */
  async function flood(frameOf: (n: number) => Buffer): Promise<{ written: number[]; ends: (ConnectionEnd | undefined)[] }> {
    const until = performance.now() + ATTACK_MS;
    const written: number[] = [];
    const ends: (ConnectionEnd | undefined)[] = [];
    while (performance.now() < until) {
      const connection = await RawH2Connection.open(program.port, CA);
      connection.pauseReading();
      let n = 0;
      while (!connection.closed && performance.now() < until) {
        const batch = Array.from({ length: BATCH }, (_, i) => frameOf(n + i));
        await Promise.race([connection.send(Buffer.concat(batch)), sleep(Math.max(0, until - performance.now()))]);
        n += BATCH;
      }
      written.push(n);
      // A connection the server closed has its end on the way; one still open at the end is closed here.
      ends.push(await endOf(connection, connection.closed ? 5_000 : 0));
    }
    return { written, ends };
  }

  for (const [name, frameOf] of [
    ['SETTINGS', (n: number) => settingsFrame([[SETTING.INITIAL_WINDOW_SIZE, 65_535 + (n % 2)]])],
    ['PING', (n: number) => pingFrame(n)],
  ] as const) {
    it(`closes a connection that sends thousands of ${name} frames without reading the acknowledgements, and other clients are served promptly meanwhile`, { timeout: 60_000 }, async () => {
      const m = await measureDuring(program, () => flood(frameOf));
      const closed = m.seen.written.filter((_, i) => m.seen.ends[i] !== undefined);
      const figures = report(`${name} flood`, m, `${m.seen.written.length} connections, ${closed.length} closed by the server after ` +
        `${Math.min(...closed)} to ${Math.max(...closed)} frames each: ${tally(m.seen.ends)}`);
      assert.ok(closed.length >= 1, `no flooding connection was closed; ${figures}`);
      await assertHeld(program, m, figures);
    });
  }
});

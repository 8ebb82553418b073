/**
 * The HTTP fuzz tier: seeded raw HTTP/1.1 cases against the real program, in prod and in dev
 * (with the profiler), each answer checked against the invariants, then the log files.
 *
 * Settings (environment): FUZZ_SEED (default fixed), FUZZ_SECONDS (budget of both modes
 * together, default 60), FUZZ_REQUESTS (stop after this many requests per mode), FUZZ_CASE
 * (replay one case index), FUZZ_MODE (`prod` or `dev` only), FUZZ_EXCLUDE (methods to leave
 * out, comma-separated, while a known crash hides everything else; it changes the cases).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runExchange } from './client.js';
import { checkExchange, WARNINGS, type Violation } from './invariants.js';
import { checkLogDir } from './logs.js';
import { modelRequests } from './request-model.js';
import { generateCase, type FuzzCase } from './requests.js';
import { parseSeed } from './rng.js';
import { startFuzzService, type FuzzService, type Mode } from './service.js';
import { TOKEN_PLACEHOLDER } from './targets.js';

const SEED = parseSeed(process.env.FUZZ_SEED);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 60);
const MAX_REQUESTS = Number(process.env.FUZZ_REQUESTS ?? Infinity);
const ONLY_CASE = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE);
const EXCLUDED = (process.env.FUZZ_EXCLUDE ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '');
const MODES: Mode[] = process.env.FUZZ_MODE === 'prod' || process.env.FUZZ_MODE === 'dev' ? [process.env.FUZZ_MODE] : ['prod', 'dev'];
/** Connections in flight at once. */
const CONCURRENCY = 4;
/** Every request gets its answer, or the connection closes, this long after the last byte sent. */
const DEADLINE_MS = 5_000;
/** Bytes of a failing case printed inline; FUZZ_CASE replays the whole of it. */
const PRINTED_BYTES = 1500;
/** Examples printed per distinct failure. */
const EXAMPLES = 2;

interface Failure extends Violation {
  readonly mode: Mode;
  readonly index: number;
  readonly text: string;
  readonly delivery: string;
}

const totals = { requests: 0, connections: 0, responses: 0, checks: 0, logLines: 0, started: performance.now() };
const failures: Failure[] = [];
/** Requests sent in the current mode. */
let modeRequests = 0;
/** A program that dies is started again (and the death reported), at most this often per mode. */
const MAX_RESTARTS = 10;

/** Profiler tokens seen in answers (dev), so later cases can ask for their pages. */
const tokens: string[] = [];

function tokenFor(index: number): string {
  return tokens.length === 0 ? 'abc123' : tokens[index % tokens.length]!;
}

/** Whether the program under fuzz is still running. */
function isAlive(service: FuzzService): boolean {
  return service.program.child.exitCode === null && service.program.child.signalCode === null;
}

async function runCase(service: FuzzService, fuzzCase: FuzzCase): Promise<void> {
  const text = fuzzCase.text.replaceAll(TOKEN_PLACEHOLDER, tokenFor(fuzzCase.index));
  const model = modelRequests(text);
  const exchange = await runExchange({ port: service.port, text, pieces: fuzzCase.pieces, pauseMs: fuzzCase.pauseMs, halfClose: fuzzCase.halfClose, model, deadlineMs: DEADLINE_MS });
  const verdict = checkExchange(model, exchange, service.secrets, text);
  // A connection cut by the program's death says nothing of its own: give the exit a moment to show.
  if (verdict.violations.length > 0 && isAlive(service)) await sleep(200);
  if (!isAlive(service)) {
    // Whatever this connection saw, the cause is the crash: report the cases in flight once.
    failures.push({ invariant: 'no-hang', detail: `the program died while this case was in flight (exit ${service.program.child.exitCode})`, mode: service.mode, index: fuzzCase.index, text, delivery: describeDelivery(fuzzCase) });
    return;
  }
  totals.connections++;
  totals.requests += Math.max(1, model.requests.length);
  totals.responses += verdict.responses.length;
  totals.checks += verdict.checks;
  for (const res of verdict.responses) {
    const token = res.fields.get('x-debug-token')?.[0];
    if (token === undefined || !/^[0-9a-f]{6}$/.test(token)) continue;
    tokens.push(token);
    if (tokens.length > 64) tokens.shift();
  }
  for (const v of verdict.violations) failures.push({ ...v, mode: service.mode, index: fuzzCase.index, text, delivery: describeDelivery(fuzzCase) });
}

function describeDelivery(fuzzCase: FuzzCase): string {
  const pieces = fuzzCase.pieces.length > 1 ? `${fuzzCase.pieces.length} pieces, ${fuzzCase.pauseMs} ms apart` : 'whole';
  return `${pieces}${fuzzCase.halfClose ? ', then half-closed' : ''}`;
}

/**
 * Runs cases from `first` until `until`, the request budget, or the death of the program;
 * returns the next case index.
 */
async function fuzz(service: FuzzService, until: number, first: number): Promise<number> {
  let next = first;
  const last = ONLY_CASE ?? Infinity;
  const worker = async () => {
    while (next <= last && performance.now() < until && modeRequests < MAX_REQUESTS && isAlive(service)) {
      const index = next++;
      const before = totals.requests;
      await runCase(service, generateCase(SEED, index, service.env));
      modeRequests += totals.requests - before;
    }
  };
  await Promise.all(Array.from({ length: ONLY_CASE === undefined ? CONCURRENCY : 1 }, worker));
  return next;
}

/** Stops the program gracefully and checks what it left: exit code, stderr, log files. */
async function stopAndCheckLogs(service: FuzzService): Promise<void> {
  const { program } = service;
  const alive = isAlive(service);
  const push = (invariant: Violation['invariant'], detail: string) =>
    failures.push({ invariant, detail, mode: service.mode, index: -1, text: '', delivery: '' });
  if (!alive) push('no-hang', `the program died during the run: ${program.output().stderr.slice(-2000)}`);
  program.child.kill('SIGTERM');
  const exited = await Promise.race([program.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000).unref())]);
  if (exited === undefined) {
    push('no-hang', 'no exit within 15 s of SIGTERM');
    program.child.kill('SIGKILL');
  } else if (alive && exited[0] !== 0) push('no-hang', `exit ${exited[0]} ${exited[1]} after SIGTERM: ${program.output().stderr.slice(-2000)}`);
  const logs = checkLogDir(service.logDir, service.mode, service.secrets);
  totals.checks += logs.checks;
  totals.logLines += logs.lines;
  for (const p of logs.problems) push(p.invariant, p.detail);
  const stderr = program.output().stderr.trim();
  for (const secret of service.secrets) if (stderr.includes(secret)) push('no-secret', 'stderr shows a configured secret value');
}

/** One line per distinct failure (numbers blurred), with examples to replay. */
function summarize(list: readonly Failure[]): string {
  const groups = new Map<string, Failure[]>();
  for (const f of list) {
    const key = `${f.mode} ${f.invariant}: ${f.detail.replace(/\d+/g, '#').slice(0, 90)}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const out: string[] = [`${list.length} violation(s), ${groups.size} distinct (seed ${SEED}):`];
  for (const [key, group] of groups) {
    out.push(`\n[${key}] x${group.length}`);
    for (const f of group.slice(0, EXAMPLES)) {
      out.push(`  invariant ${f.invariant}, mode ${f.mode}, seed ${SEED}, case ${f.index}: ${f.detail}`);
      if (f.index < 0) continue;
      const shown = f.text.length > PRINTED_BYTES ? `${JSON.stringify(f.text.slice(0, PRINTED_BYTES))} (+${f.text.length - PRINTED_BYTES} bytes)` : JSON.stringify(f.text);
      out.push(`    bytes (latin1, ${f.delivery}): ${shown}`);
      const exclude = EXCLUDED.length > 0 ? ` FUZZ_EXCLUDE=${EXCLUDED.join(',')}` : '';
      out.push(`    replay: FUZZ_SEED=${SEED} FUZZ_CASE=${f.index} FUZZ_MODE=${f.mode}${exclude} node --import tsx --test test/fuzz/http.fuzz.ts`);
    }
  }
  return out.join('\n');
}

describe('HTTP fuzz', () => {
  after(() => {
    const seconds = ((performance.now() - totals.started) / 1000).toFixed(1);
    process.stdout.write(
      `fuzz: seed ${SEED}: ${totals.requests} requests on ${totals.connections} connections sent, ` +
        `${totals.responses} responses checked, ${totals.logLines} log lines checked, ` +
        `${totals.checks} invariants checked, ${seconds} s\n`,
    );
  });

  for (const mode of MODES) {
    it(`keeps every invariant in ${mode}`, { timeout: (SECONDS / MODES.length + 60) * 1000 }, async () => {
      const before = failures.length;
      const until = performance.now() + (SECONDS / MODES.length) * 1000;
      modeRequests = 0;
      let next = ONLY_CASE ?? 0;
      for (let starts = 0; starts <= MAX_RESTARTS; starts++) {
        const service = await startFuzzService(mode, SEED, EXCLUDED);
        next = await fuzz(service, until, next);
        await stopAndCheckLogs(service);
        const done = performance.now() >= until || modeRequests >= MAX_REQUESTS || (ONLY_CASE !== undefined && next > ONLY_CASE);
        if (done) break;
      }
      process.stdout.write(`fuzz ${mode}: cases ${ONLY_CASE ?? 0}..${next - 1}\n`);
      const mine = failures.slice(before);
      const warnings = mine.filter((f) => WARNINGS.has(f.invariant));
      if (warnings.length > 0) process.stdout.write(`fuzz ${mode}: warnings (not failures):\n${summarize(warnings)}\n`);
      const broken = mine.filter((f) => !WARNINGS.has(f.invariant));
      if (broken.length > 0) assert.fail(summarize(broken));
    });
  }
});

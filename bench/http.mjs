// The service against its peers, side by side, interleaved round by round (this machine's speed
// drifts): GET / against a bare node:http handler and fastify; a 404 flood with a log line per
// request against fastify + pino; cold start and RSS (after one request, after 10,000, and at
// peak with 1,000 keep-alive connections). Server and load generator share the machine's cores.
//   npm run bench:http   (builds the service first)
//   BEFORE=<an older build's dist/server.js> npm run bench:http   (adds it as "before" to cold
//   start and memory, interleaved with the others)
//   ONLY=get|flood|start npm run bench:http   (one part, e.g. with more rounds: ROUNDS=15 DURATION=3)
import './lib/reference-node.mjs';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRETS, cpuSeconds, load, machine, median, peakRssMiB, rssMiB, startChild } from './lib/measure.mjs';
import { report } from './lib/results.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = Number(process.env.DURATION ?? 5);
/** Seconds of load each GET / server gets after its start, before the rounds (its JIT's warm-up). */
const WARM = Number(process.env.WARM ?? 20);
const work = mkdtempSync(join(tmpdir(), 'bench-http-'));
const BEFORE = process.env.BEFORE;
/** ONLY=get, flood or start runs that part alone (with --write, into a section of its own). */
const ONLY = process.env.ONLY;
const runs = (part) => ONLY === undefined || ONLY === part;
// ACCESS_LOG=0: bare and fastify log no requests either (bench:mix weighs the access log).
const service = (script, env = {}) => () => startChild(script, [], { ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: join(work, `log-${Date.now()}`), ACCESS_LOG: '0', ...env });
const ours = service('../dist/server.js');
const json = { accept: 'application/json' };

// The exact bytes our GET / writes, for the bare handler and fastify.
const probe = await ours();
const doc = await (await fetch(probe.url + '/', { headers: json })).text();
await probe.stop();
const peers = {
  ours,
  bare: () => startChild('servers/bare.mjs', [], { BODY: doc }),
  fastify: () => startChild('servers/fastify-doc.mjs', [], { BODY: doc }),
  ...(BEFORE ? { before: service(BEFORE) } : {}),
  // Start only: ours with V8's compile cache kept between starts (an operator's opt-in), and the
  // bare handler loading node:http with require, which on Node 22 and 24 skips Node's fetch client.
  'ours+compile-cache': service('../dist/server.js', { NODE_COMPILE_CACHE: join(work, 'compile-cache') }),
  'bare+require': () => startChild('servers/bare.mjs', [], { BODY: doc, HTTP_BY_REQUIRE: '1' }),
};

async function rounds(names, run) {
  const results = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const name of names) {
      const value = await run(name, round === 0);
      if (round > 0) results[name].push(value);
    }
  }
  return results;
}

const NOTES = `Server and load generator (autocannon, in its own process) share the same 2 cores, so req/s
drifts by tens of percent from round to round; the server's CPU time per request, read from
\`/proc/<pid>/stat\` around each round, is the steadier figure. "bare" is a \`node:http\` handler
writing the same bytes as our \`GET /\`; fastify returns the same document. Ours runs with
\`ACCESS_LOG=0\`, as the peers log no requests (bench:mix weighs the access log). In the flood, ours
writes its own line format through the daily file sink; fastify + pino writes pino's NDJSON line
through \`pino.destination({ sync: false })\`. Goals: GET / at least 0.95 × bare by server CPU per
request; 404 flood at least 1.15 × fastify + pino with zero lost lines; cold start (process start
to the first 200 on \`GET /\`) at most 1.3 × bare; RSS after that first request at most 1.15 × bare,
after 10,000 requests at most 1.3 × bare (round two's goals; round three's are in its table). For
\`GET /\` each server starts once and gets ${WARM} s of load before the rounds (steady state: V8 is
still compiling the hot path for about a process's first 150,000 requests). In the flood each
round starts every server afresh and loads it for a second, unmeasured, before its measured
seconds; its lines are counted over both. Ratios are medians of the per-round ratios (the servers
of a round run one after another, so each ratio sees the machine in one speed mode); cold start
and RSS ratios are of the medians. In the start table, "ours+compile-cache" is ours with
\`NODE_COMPILE_CACHE\` set (V8's compiled code kept between starts, an operator's opt-in), and
"bare+require" is the bare handler loading \`node:http\` with \`require\`, as the service does: on
Node 22 and 24 an \`import\` of it also loads Node's fetch client. "before" (when present) is an
older build of ours, given as \`BEFORE=<its dist/server.js>\`. Reproduce: \`cd bench && npm run
bench:http\`.`;

const lines = [`Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; ${ROUNDS} interleaved rounds of ${DURATION} s, autocannon, 32 connections`];
const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(', ');
/** The median of the per-round ratios a[i] ÷ b[i]: within a round the machine is in one mode. */
const pairedRatio = (a, b) => median(a.map((x, i) => x / b[i]));

/** Requests/s and the server's CPU time per request (µs), steadier than req/s on a shared machine. */
async function measure(server, path, duration, fresh = true) {
  // A round that starts a fresh process gives it a second of load first, not measured, so that
  // the first compiles are not counted. `answered` counts both.
  const warm = fresh ? await load(server.url, { path, headers: json, duration: 1 }) : { total: 0 };
  const c0 = cpuSeconds(server.child.pid);
  const r = await load(server.url, { path, headers: json, duration });
  return { ...r, answered: warm.total + r.total, cpuUs: ((cpuSeconds(server.child.pid) - c0) / r.total) * 1e6 };
}

// GET / (prod, JSON)
if (runs('get')) {
  const rootNames = ['ours', 'bare', 'fastify', ...(BEFORE ? ['before'] : [])];
  const cpuRoot = Object.fromEntries(rootNames.map((n) => [n, []]));
  // Steady state: each server starts once and is loaded WARM seconds before the rounds (V8 goes
  // on compiling the hot path for about a process's first 150,000 requests; a round a second
  // after the start measured that warm-up, longer for the server with more code).
  const running = {};
  for (const name of rootNames) {
    running[name] = await peers[name]();
    await load(running[name].url, { path: '/', headers: json, duration: WARM });
  }
  const getRoot = await rounds(rootNames, async (name, warmup) => {
    const r = await measure(running[name], '/', warmup ? 2 : DURATION, false);
    if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    if (!warmup) cpuRoot[name].push(r.cpuUs);
    return r.rps;
  });
  for (const name of rootNames) await running[name].stop();
  const m = Object.fromEntries(Object.entries(getRoot).map(([k, v]) => [k, median(v)]));
  const c = Object.fromEntries(Object.entries(cpuRoot).map(([k, v]) => [k, median(v)]));
  lines.push('', '| GET / (JSON) | req/s (median) | rounds | ours ÷ peer (req/s) | server CPU µs/request (median) | peer ÷ ours (CPU) |', '|---|---:|---|---:|---:|---:|');
  for (const name of rootNames) {
    const self = name === 'ours';
    const ratios = self ? ['', ''] : [pairedRatio(getRoot.ours, getRoot[name]).toFixed(2), pairedRatio(cpuRoot[name], cpuRoot.ours).toFixed(2)];
    lines.push(`| ${name} | ${m[name].toFixed(0)} | ${fmt(getRoot[name])} | ${ratios[0]} | ${c[name].toFixed(1)} | ${ratios[1]} |`);
  }
}

// 404 flood with a log line per request
if (runs('flood')) {
  let lost = 0;
  const floodNames = ['ours', 'fastify+pino', ...(BEFORE ? ['before'] : [])];
  const cpuFlood = Object.fromEntries(floodNames.map((n) => [n, []]));
  const flood = await rounds(floodNames, async (name, warmup) => {
    const logDir = mkdtempSync(join(work, 'flood-'));
    const server = name === 'fastify+pino'
      ? await startChild('servers/fastify-404.mjs', [], { LOG_FILE: join(logDir, 'pino.log') })
      : await startChild(name === 'before' ? BEFORE : '../dist/server.js', [], { ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: logDir });
    const r = await measure(server, '/flood-path', warmup ? 2 : DURATION);
    await server.stop();
    if (!warmup) cpuFlood[name].push(r.cpuUs);
    const written = readdirSync(logDir)
      .map((f) => readFileSync(join(logDir, f), 'utf8').split('\n').filter((l) => l.includes('No route found')).length)
      .reduce((a, b) => a + b, 0);
    if (!warmup) lost += Math.max(0, r.answered - written) * (name === 'ours' ? 1 : 0);
    if (!warmup && written < r.answered) lines.push(`(${name}: ${r.answered - written} lines missing of ${r.answered})`);
    rmSync(logDir, { recursive: true, force: true });
    return r.rps;
  });
  const f = { ours: median(flood.ours), peer: median(flood['fastify+pino']) };
  const fc = { ours: median(cpuFlood.ours), peer: median(cpuFlood['fastify+pino']) };
  lines.push('', '| 404 flood, one log line per request to a file | req/s (median) | rounds | server CPU µs/request (median) |', '|---|---:|---|---:|');
  lines.push(`| ours (daily file sink) | ${f.ours.toFixed(0)} | ${fmt(flood.ours)} | ${fc.ours.toFixed(1)} |`);
  lines.push(`| fastify + pino (async destination) | ${f.peer.toFixed(0)} | ${fmt(flood['fastify+pino'])} | ${fc.peer.toFixed(1)} |`);
  const peerRps = flood['fastify+pino'];
  const peerCpu = cpuFlood['fastify+pino'];
  lines.push(`| ratio ours ÷ fastify+pino | ${pairedRatio(flood.ours, peerRps).toFixed(2)} | lines lost by ours: ${lost} | fastify+pino ÷ ours: ${pairedRatio(peerCpu, cpuFlood.ours).toFixed(2)} |`);
  if (BEFORE) {
    const fb = median(flood.before);
    const fcb = median(cpuFlood.before);
    lines.push(`| before (older build of ours) | ${fb.toFixed(0)} | ${fmt(flood.before)} | ${fcb.toFixed(1)} |`);
    lines.push(`| ratio before ÷ fastify+pino | ${pairedRatio(flood.before, peerRps).toFixed(2)} | | fastify+pino ÷ before: ${pairedRatio(peerCpu, cpuFlood.before).toFixed(2)} |`);
  }
}

// Cold start and memory, the peers interleaved round by round
if (runs('start')) {
  const REQUESTS = 10_000;
  async function coldStart(name) {
    const t0 = performance.now();
    const server = await peers[name]();
    for (;;) {
      try {
        const res = await fetch(server.url + '/', { headers: json });
        await res.text();
        if (res.status === 200) break;
      } catch {
        // not accepting yet
      }
    }
    const ms = performance.now() - t0;
    const idle = rssMiB(server.child.pid);
    const r = await load(server.url, { path: '/', headers: json, amount: REQUESTS });
    if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    const after = rssMiB(server.child.pid);
    await load(server.url, { path: '/', headers: json, connections: 1000, duration: DURATION });
    const busy = peakRssMiB(server.child.pid);
    await server.stop();
    return { ms, idle, after, busy };
  }
  const startNames = [...(BEFORE ? ['before'] : []), 'ours', 'ours+compile-cache', 'fastify', 'bare', 'bare+require'];
  const starts = await rounds(startNames, (name) => coldStart(name));
  const startMedians = Object.fromEntries(startNames.map((n) => [n, {
    ms: median(starts[n].map((x) => x.ms)),
    idle: median(starts[n].map((x) => x.idle)),
    after: median(starts[n].map((x) => x.after)),
    busy: median(starts[n].map((x) => x.busy)),
  }]));
  const vsBare = (name, key) => (startMedians[name][key] / startMedians.bare[key]).toFixed(2);
  lines.push(
    '',
    `| start and memory | cold start to first 200 (ms, median) | rounds | ÷ bare | RSS after 1 request (MiB) | ÷ bare | RSS after ${REQUESTS.toLocaleString('en')} requests (MiB) | ÷ bare | peak RSS, 1,000 keep-alive connections (MiB) |`,
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const name of startNames) {
    const x = startMedians[name];
    lines.push(`| ${name} | ${x.ms.toFixed(0)} | ${fmt(starts[name].map((r) => r.ms))} | ${vsBare(name, 'ms')} | ${x.idle.toFixed(1)} | ${vsBare(name, 'idle')} | ${x.after.toFixed(1)} | ${vsBare(name, 'after')} | ${x.busy.toFixed(1)} |`);
  }
}

rmSync(work, { recursive: true, force: true });
report(ONLY ? `## Service against its peers: ${ONLY} only` : '## Service against its peers', lines.join('\n'), NOTES);

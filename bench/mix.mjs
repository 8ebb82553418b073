// The realistic 404 mix (lib/mix.mjs: 4,000 distinct requests, scanner, crawler and browser paths,
// five kinds of Accept, a Referer on a third, varied user agents) against ours, fastify + pino and
// Hono + pino doing the same work (servers/peer-404.mjs), side by side, round by round. Each
// server is pinned to core 0 and wrk to core 1, so the load generator is not the bottleneck and
// does not share the server's core. Then p99 latency at a fixed rate, well below saturation.
//   npm run bench:mix   (builds the service first)
//   BEFORE=<an older build's dist/server.js> npm run bench:mix   (adds it, interleaved)
//   ROUNDS=7 DURATION=5 WARM=20 RATE=2000 SEED=2026 ONLY=ours,ours+access   (ONLY: a subset of the servers)
// `ours` runs with ACCESS_LOG=0, as the peers log no requests; `ours+access` with the access log on
// (the default), against `fastify+pino+requests`, fastify's own request logging on.
import './lib/reference-node.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedRateLatency } from './lib/fixed-rate.mjs';
import { requestMix, wrkScript } from './lib/mix.mjs';
import { SECRETS, cpuSeconds, machine, median, startChild } from './lib/measure.mjs';
import { report } from './lib/results.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = Number(process.env.DURATION ?? 5);
/** Seconds of load each server gets after its start, before the rounds (its JIT's warm-up). */
const WARM = Number(process.env.WARM ?? 20);
const RATE = Number(process.env.RATE ?? 2000);
const SEED = Number(process.env.SEED ?? 2026);
const CONNECTIONS = 32;
const BEFORE = process.env.BEFORE;
const SERVER_CPU = 0;
const LOAD_CPU = 1;

// This process sends the fixed-rate load: on the load generator's core, not the server's.
execFileSync('taskset', ['-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });

const work = mkdtempSync(join(tmpdir(), 'bench-mix-'));
const requests = requestMix(4000, SEED);
const script = join(work, 'mix.lua');
writeFileSync(script, wrkScript(requests));

// LOG_MAX_BYTES: no day's file fills during a run (past it lines are counted, not written).
const ourEnv = (logDir, accessLog = '0') => ({ ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: logDir, ACCESS_LOG: accessLog, LOG_MAX_BYTES: String(8 * 2 ** 30) });
/** Our prod HTML 404 page, byte for byte, for the peers to send. */
async function ourPage() {
  const logDir = mkdtempSync(join(work, 'probe-'));
  const probe = await startChild('../dist/server.js', [], ourEnv(logDir));
  const page = await (await fetch(`${probe.url}/probe`)).text();
  await probe.stop();
  return page;
}
const PAGE_404 = await ourPage();

const ALL_SERVERS = {
  ours: (logDir) => startChild('../dist/server.js', [], ourEnv(logDir), [], { cpu: SERVER_CPU }),
  'ours+access': (logDir) => startChild('../dist/server.js', [], ourEnv(logDir, '1'), [], { cpu: SERVER_CPU }),
  ...(BEFORE ? { before: (logDir) => startChild(BEFORE, [], ourEnv(logDir), [], { cpu: SERVER_CPU }) } : {}),
  // BEFORE_ACCESS=1: the older build with its access log too, to pair the log's cost before and after.
  ...(BEFORE && process.env.BEFORE_ACCESS === '1' ? { 'before+access': (logDir) => startChild(BEFORE, [], ourEnv(logDir, '1'), [], { cpu: SERVER_CPU }) } : {}),
  'fastify+pino': (logDir) => startChild('servers/fastify-mix.mjs', [], { PAGE_404, LOG_FILE: join(logDir, 'pino.log') }, [], { cpu: SERVER_CPU }),
  'fastify+pino+requests': (logDir) => startChild('servers/fastify-mix.mjs', [], { PAGE_404, LOG_FILE: join(logDir, 'pino.log'), REQUEST_LOG: '1' }, [], { cpu: SERVER_CPU }),
  'hono+pino': (logDir) => startChild('servers/hono-mix.mjs', [], { PAGE_404, LOG_FILE: join(logDir, 'pino.log') }, [], { cpu: SERVER_CPU }),
};
const ONLY = process.env.ONLY?.split(',');
const SERVERS = Object.fromEntries(Object.entries(ALL_SERVERS).filter(([name]) => name === 'ours' || !ONLY || ONLY.includes(name)));
const NAMES = Object.keys(SERVERS);
/** Servers that write one request line per request besides the error line. */
const REQUEST_LINES = new Set(['ours+access', 'before+access', 'fastify+pino+requests']);

/** One wrk run of the mix: requests/s, requests completed, p99 at saturation (ms). */
function wrk(url, seconds) {
  const out = execFileSync('taskset', ['-c', String(LOAD_CPU), 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const total = Number(/(\d+) requests in/.exec(out)[1]);
  const errors = /Socket errors: (.*)/.exec(out)?.[1];
  if (errors) throw new Error(`wrk socket errors: ${errors}`);
  return { rps, total };
}

/** Lines of the 404 (ours: `request.ERROR: No route found`; pino: the same message) in a directory. */
function linesIn(dir) {
  return countLines(dir, (l) => l.includes('No route found'));
}

/** Request lines in a directory: our access log's, or fastify's `request completed`. */
function requestLinesIn(dir) {
  return countLines(dir, (l) => l.startsWith('{"time":"') && l.includes('"request_id"') || l.includes('"msg":"request completed"'));
}

function countLines(dir, test) {
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(test).length)
    .reduce((a, b) => a + b, 0);
}

const rps = Object.fromEntries(NAMES.map((n) => [n, []]));
const cpu = Object.fromEntries(NAMES.map((n) => [n, []]));
const lost = Object.fromEntries(NAMES.map((n) => [n, 0]));
// Every server starts once and is loaded WARM seconds before the rounds: V8 goes on compiling the
// hot path for about the first 150,000 requests of a process (some 100 functions optimised
// between its 2nd and 5th second under this load, none after its 12th), so a round started a
// second after its process measured that warm-up, longer for a server with more code.
const running = {};
for (const name of NAMES) {
  const logDir = mkdtempSync(join(work, 'log-'));
  const server = await SERVERS[name](logDir);
  running[name] = { server, logDir, answered: wrk(server.url, WARM).total };
}
for (let round = 0; round < ROUNDS; round++) {
  // Every other round runs the servers in reverse order, so a drift of the machine's speed within
  // a round does not favour whoever runs first.
  for (const name of round % 2 === 1 ? [...NAMES].reverse() : NAMES) {
    const { server } = running[name];
    const c0 = cpuSeconds(server.child.pid);
    const r = wrk(server.url, DURATION);
    cpu[name].push(((cpuSeconds(server.child.pid) - c0) / r.total) * 1e6);
    rps[name].push(r.rps);
    running[name].answered += r.total;
  }
}
for (const name of NAMES) {
  const { server, logDir, answered } = running[name];
  await server.stop();
  lost[name] = Math.max(0, answered - linesIn(logDir)) + (REQUEST_LINES.has(name) ? Math.max(0, answered - requestLinesIn(logDir)) : 0);
  rmSync(logDir, { recursive: true, force: true });
}

/** p50 and p99 latency (ms) at a fixed rate, open loop (lib/fixed-rate.mjs), sent from this process. */
async function p99At(name) {
  const logDir = mkdtempSync(join(work, 'log-'));
  const server = await SERVERS[name](logDir);
  const options = { rate: RATE, connections: 16 };
  await fixedRateLatency(server.url, requests, { ...options, seconds: 1 });
  const result = await fixedRateLatency(server.url, requests, { ...options, seconds: DURATION });
  await server.stop();
  rmSync(logDir, { recursive: true, force: true });
  if (result.failed > 0) throw new Error(`${name}: ${result.failed} of ${result.sent} requests failed at ${RATE} req/s`);
  return { p50: result.p50.toFixed(2), p99: result.p99.toFixed(2) };
}
const latency = {};
for (const name of NAMES) latency[name] = await p99At(name);

const pairedRatio = (a, b) => median(a.map((x, i) => x / b[i]));
const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(', ');
const lines = [
  `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; each server started once and loaded ${WARM} s, then ${ROUNDS} interleaved rounds of ${DURATION} s; wrk, 1 thread, ${CONNECTIONS} connections, pinned to core ${LOAD_CPU}, each server pinned to core ${SERVER_CPU}; seed ${SEED}`,
  '',
  '| realistic 404 mix | req/s (median) | rounds | ours ÷ peer (req/s; +requests rows: ours+access ÷ peer) | server CPU µs/request (median) | peer ÷ ours (CPU) | lines lost | p50 / p99 ms at ' + RATE + ' req/s |',
  '|---|---:|---|---:|---:|---:|---:|---:|',
];
for (const name of NAMES) {
  // Peers logging every request are compared with ours logging every request.
  const base = name === 'fastify+pino+requests' && rps['ours+access'] ? 'ours+access' : 'ours';
  const self = name === base;
  const ratios = self ? ['', ''] : [pairedRatio(rps[base], rps[name]).toFixed(2), pairedRatio(cpu[name], cpu[base]).toFixed(2)];
  const l = latency[name];
  lines.push(`| ${name} | ${median(rps[name]).toFixed(0)} | ${fmt(rps[name])} | ${ratios[0]} | ${median(cpu[name]).toFixed(1)} | ${ratios[1]} | ${lost[name]} | ${l.p50} / ${l.p99} |`);
}
const accessCost = rps['ours+access'] ? `\n\nThe access log costs ${((1 - pairedRatio(rps['ours+access'], rps.ours)) * 100).toFixed(1)} % of the mix's requests per second (ours+access ÷ ours, paired by round: ${pairedRatio(rps['ours+access'], rps.ours).toFixed(3)}) and ${((pairedRatio(cpu['ours+access'], cpu.ours) - 1) * 100).toFixed(1)} % more CPU per request.` : '';
const NOTES = `The mix: 4,000 distinct requests (lib/mix.mjs, deterministic for the seed): 35 % scanner probes
(\`/wp-login.php\`, \`/.env\`…; a fifth of them %-encoded, as traversal and injection probes arrive:
\`/cgi-bin/.%2e/.%2e/…\`, ${requests.filter((r) => r.path.includes('%')).length} requests in all), 15 % crawler paths (\`/robots.txt\`, \`/favicon.ico\`…), 50 % browser
paths (products, blog posts, searches), each distinct by an id or a query; five kinds of Accept
(none, \`*/*\`, a browser's, \`application/json\`, axios'), a Referer on every third, ten user
agents. Every server answers them as ours does in prod (our HTML page unless a JSON type is
preferred, the problem document otherwise, the year-long cache headers) and writes the error
line and, when the type is not \`about:blank\`, the incident line: ours through its daily file
sink, the peers through pino's asynchronous destination. wrk sends the list in order (each run
from a random offset). Each server starts once and gets WARM seconds of the mix before the
rounds (steady state: V8 is still compiling the hot path for about a process's first 150,000
requests); the servers then run in turn, in reverse order every other round. Ratios are medians of the per-round ratios; "lines lost" counts answered
requests without their error line (and, for ours+access and fastify+pino+requests, without their
request line). Latency: after the rounds, each server afresh gets the mix at a fixed rate from
this process (on wrk's core) over 16 keep-alive connections, open loop: a request's latency runs
from when it was due, not from when a free connection sent it, so a stall counts for every
request it held up (lib/fixed-rate.mjs); Node's own HTTP client sends them, and its share is in
every figure alike. Reproduce: \`cd bench && npm run bench:mix\`.${accessCost}`;
rmSync(work, { recursive: true, force: true });
report('## Realistic 404 mix', lines.join('\n'), NOTES);

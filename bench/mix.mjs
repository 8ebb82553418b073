// The realistic mix (lib/mix.mjs: 4,000 distinct requests: scanner, crawler and browser paths,
// campaign queries up to 600 characters, five kinds of Accept each from its own clients, cookies
// and Accept-Language on browsers' requests, a Referer on a third, HEAD and OPTIONS, and a share
// of `/`) against ours, fastify + pino, Hono + pino and bare node:http + pino doing the same work
// (servers/peer-404.mjs and each peer's file), side by side, round by round. Before measuring,
// every request of the mix goes to each server and its answer (status, body, the headers that
// matter) is compared with ours: a difference fails the run. Each server is pinned to core 0 and
// wrk to core 1, so the load generator is not the bottleneck and does not share the server's core.
// Then p99 latency at a fixed rate, well below saturation.
//   npm run bench:mix   (builds the service first)
//   node mix.mjs --check   (the check alone, every server; needs a build)
//   BEFORE=<an older build's dist/server.js> npm run bench:mix   (adds it, interleaved)
//   ROUNDS=7 DURATION=5 WARM=20 RATE=2000 SEED=2026 ONLY=ours,ours+access   (ONLY: a subset of the servers)
// `ours` runs with ACCESS_LOG=0, as the peers log no requests; `ours+access` with the access log on
// (the default), against `fastify+pino+requests`, fastify's own request logging on.
// wrk sends every request but the HEAD ones (wrk 4.1 waits for the body a HEAD answer announces);
// the fixed-rate latency sends the GET ones (lib/fixed-rate.mjs sends GET only).
import './lib/reference-node.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedRateLatency } from './lib/fixed-rate.mjs';
import { answerDifferences, answersOf, mixComposition, probeOurs, requestMix, wrkScript } from './lib/mix.mjs';
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
const CHECK_ONLY = process.argv.includes('--check');
const requests = requestMix(4000, SEED, { home: true });
const mix = mixComposition(requests);
const script = join(work, 'mix.lua');
writeFileSync(script, wrkScript(requests));

// LOG_MAX_BYTES: no day's file fills during a run (past it lines are counted, not written).
const ourEnv = (logDir, accessLog = '0') => ({ ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: logDir, ACCESS_LOG: accessLog, LOG_MAX_BYTES: String(8 * 2 ** 30) });
/** Our prod 404 page and entry point, byte for byte, for the peers to send (lib/mix.mjs's probeOurs). */
async function ourDocuments() {
  const logDir = mkdtempSync(join(work, 'probe-'));
  const probe = await startChild('../dist/server.js', [], ourEnv(logDir));
  const documents = await probeOurs(probe.url);
  await probe.stop();
  return documents;
}
const DOCUMENTS = await ourDocuments();
const peerEnv = (logDir, more = {}) => ({ ...DOCUMENTS, LOG_FILE: join(logDir, 'pino.log'), ...more });

const ALL_SERVERS = {
  ours: (logDir) => startChild('../dist/server.js', [], ourEnv(logDir), [], { cpu: SERVER_CPU }),
  'ours+access': (logDir) => startChild('../dist/server.js', [], ourEnv(logDir, '1'), [], { cpu: SERVER_CPU }),
  ...(BEFORE ? { before: (logDir) => startChild(BEFORE, [], ourEnv(logDir), [], { cpu: SERVER_CPU }) } : {}),
  // BEFORE_ACCESS=1: the older build with its access log too, to pair the log's cost before and after.
  ...(BEFORE && process.env.BEFORE_ACCESS === '1' ? { 'before+access': (logDir) => startChild(BEFORE, [], ourEnv(logDir, '1'), [], { cpu: SERVER_CPU }) } : {}),
  'fastify+pino': (logDir) => startChild('servers/fastify-mix.mjs', [], peerEnv(logDir), [], { cpu: SERVER_CPU }),
  'fastify+pino+requests': (logDir) => startChild('servers/fastify-mix.mjs', [], peerEnv(logDir, { REQUEST_LOG: '1' }), [], { cpu: SERVER_CPU }),
  'hono+pino': (logDir) => startChild('servers/hono-mix.mjs', [], peerEnv(logDir), [], { cpu: SERVER_CPU }),
  'node:http+pino': (logDir) => startChild('servers/node-mix.mjs', [], peerEnv(logDir), [], { cpu: SERVER_CPU }),
};
const ONLY = process.env.ONLY?.split(',');
const SERVERS = Object.fromEntries(Object.entries(ALL_SERVERS).filter(([name]) => name === 'ours' || !ONLY || CHECK_ONLY || ONLY.includes(name)));
const NAMES = Object.keys(SERVERS);

/**
 * Every request of the mix to every server, each answer compared with ours (lib/mix.mjs's
 * answerDifferences: status, body with the server's origin written `{origin}`, Content-Type,
 * Content-Length, Cache-Control, Vary, Allow, X-Robots-Tag, and Expires to within 5 s).
 * Throws on a difference: a peer that answers otherwise measures other work.
 */
async function checkAnswers() {
  const answers = {};
  for (const name of NAMES) {
    const logDir = mkdtempSync(join(work, 'check-'));
    const server = await SERVERS[name](logDir);
    answers[name] = await answersOf(server.url, requests);
    await server.stop();
    rmSync(logDir, { recursive: true, force: true });
  }
  const failures = [];
  for (const name of NAMES.filter((n) => n !== 'ours')) {
    const diffs = answerDifferences(requests, answers.ours, answers[name]);
    process.stderr.write(`check: ${name}: ${diffs.length === 0 ? `all ${requests.length} answers as ours` : `${diffs.length} of ${requests.length} answers differ from ours`}\n`);
    if (diffs.length > 0) failures.push(`${name}: ${diffs.length} answers differ from ours, e.g.\n  ${diffs.slice(0, 8).join('\n  ')}`);
  }
  if (failures.length > 0) throw new Error(`bench:mix check failed:\n${failures.join('\n')}`);
  const statuses = {};
  for (const a of answers.ours) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return statuses;
}
const OUR_STATUSES = await checkAnswers();
if (CHECK_ONLY) {
  process.stderr.write(`check: ours answered ${JSON.stringify(OUR_STATUSES)} (status: requests)\n`);
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
/** Servers that write one request line per request besides the error line. */
const REQUEST_LINES = new Set(['ours+access', 'before+access', 'fastify+pino+requests']);

/**
 * One wrk run of the mix: requests/s, requests completed, and of them those for `/` (no 404 line):
 * the script counts the requests it handed wrk and how many were unrouted; the ones still in
 * flight at the end (at most CONNECTIONS) are counted as answered `/` requests, which errs
 * towards fewer lines lost.
 */
function wrk(url, seconds) {
  const out = execFileSync('taskset', ['-c', String(LOAD_CPU), 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const total = Number(/(\d+) requests in/.exec(out)[1]);
  const errors = /Socket errors: (.*)/.exec(out)?.[1];
  if (errors) throw new Error(`wrk socket errors: ${errors}`);
  const [, sent, unrouted] = /mix: (\d+) sent, (\d+) unrouted/.exec(out).map(Number);
  return { rps, total, home: sent - unrouted };
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
  const warm = wrk(server.url, WARM);
  running[name] = { server, logDir, answered: warm.total, home: warm.home };
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
    running[name].home += r.home;
  }
}
for (const name of NAMES) {
  const { server, logDir, answered, home } = running[name];
  await server.stop();
  // The 404s answered log an error line each; every answer a request line, where logged.
  lost[name] = Math.max(0, answered - home - linesIn(logDir)) + (REQUEST_LINES.has(name) ? Math.max(0, answered - requestLinesIn(logDir)) : 0);
  rmSync(logDir, { recursive: true, force: true });
}

/** The GET requests of the mix: lib/fixed-rate.mjs sends GET only. */
const GETS = requests.filter((r) => r.method === 'GET');
/** p50 and p99 latency (ms) at a fixed rate, open loop (lib/fixed-rate.mjs), sent from this process. */
async function p99At(name) {
  const logDir = mkdtempSync(join(work, 'log-'));
  const server = await SERVERS[name](logDir);
  const options = { rate: RATE, connections: 16 };
  await fixedRateLatency(server.url, GETS, { ...options, seconds: 1 });
  const result = await fixedRateLatency(server.url, GETS, { ...options, seconds: DURATION });
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
  '| realistic mix | req/s (median) | rounds | ours ÷ peer (req/s; +requests rows: ours+access ÷ peer) | server CPU µs/request (median) | peer ÷ ours (CPU) | lines lost | p50 / p99 ms at ' + RATE + ' req/s |',
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
const NOTES = `The mix: ${mix.count.toLocaleString('en')} distinct requests (lib/mix.mjs, deterministic for the seed): ${mix.home} for \`/\`
(the entry point, HTML or JSON by Accept; some from campaigns with their query), then about a third
scanner probes (\`/wp-login.php\`, \`/.env\`…; ${mix.encoded} %-encoded, as traversal and injection probes
arrive: \`/cgi-bin/.%2e/.%2e/…\`), 14 % crawler paths (\`/robots.txt\`, \`/favicon.ico\`…), 3 % API paths
(browsers' CORS preflights), the rest browser paths (products, blog posts, searches), each
distinct by an id or a query; ${mix.longQueries} with a query of 200 to ${mix.longestQuery} characters (utm parameters, gclid,
fbclid, Google's linker). Methods: ${mix.get} GET, ${mix.head} HEAD (monitors, link checkers, scanners), ${mix.options}
OPTIONS (preflights, method discovery). Five kinds of Accept (none, \`*/*\`, a browser's,
\`application/json\`, axios'), each sent by its own clients among ${mix.userAgents} user agents (desktop and
mobile browsers, in-app browsers, search and AI crawlers, scanners, API clients, monitors);
browsers send Accept-Language (${mix.languages} requests) and Accept-Encoding, ${mix.cookies} requests carry cookies
(analytics, consent, session: 85 to 700 characters), ${mix.referers} a Referer. Every server answers
every request as ours does in prod, and a check before the rounds proves it (each request sent
to each server, status, body, Content-Type, Content-Length, Cache-Control, Vary, Allow,
X-Robots-Tag and Expires compared with ours'): \`/\` with the entry point (\`OPTIONS /\`: 204 and
Allow), the rest with our HTML page unless the client asks for JSON, the problem document
otherwise, the year-long cache headers; each 404 writes the error line and, when the type is not
\`about:blank\`, the incident line: ours through its daily file sink, the peers through pino's
asynchronous destination. The peers are written as their projects' docs show and as lean as a
competent user writes them (a plain Accept check, the path cut at \`?\`, the Expires string made
once a second, ours' documents as Buffers; fastify: routes for \`/\`, \`setNotFoundHandler\`,
\`reply.header\`, \`request.log\`; Hono: @hono/node-server's defaults, the Node bindings' headers,
\`Response\` with a plain header object; node:http: one handler, \`writeHead\` with a flat list).
wrk sends the list in order (each run from a random offset), its HEAD requests left out (wrk
4.1 waits for the body a HEAD answer's Content-Length announces). Each server starts once and
gets WARM seconds of the mix before the rounds (steady state: V8 is still compiling the hot path
for about a process's first 150,000 requests); the servers then run in turn, in reverse order
every other round. Ratios are medians of the per-round ratios; "lines lost" counts answered 404s
without their error line (and, for ours+access and fastify+pino+requests, answers without their
request line). Latency: after the rounds, each server afresh gets the mix's GET requests at a
fixed rate from this process (on wrk's core) over 16 keep-alive connections, open loop: a
request's latency runs from when it was due, not from when a free connection sent it, so a stall
counts for every request it held up (lib/fixed-rate.mjs); Node's own HTTP client sends them, and its share is in
every figure alike. Reproduce: \`cd bench && npm run bench:mix\`.${accessCost}`;
rmSync(work, { recursive: true, force: true });
report('## Realistic 404 mix', lines.join('\n'), NOTES);

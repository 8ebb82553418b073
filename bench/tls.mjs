// HTTPS and HTTP/2 side by side: ours serving TLS itself, fastify with its `https` option and
// with `http2: true, https: { allowHTTP1: true }` (servers/fastify-mix.mjs), and ours on plain
// HTTP behind nginx terminating TLS and h2 with the shipped site file. `GET /` and the realistic
// 404 mix (lib/mix.mjs) over HTTPS/1.1 and over h2, then the handshake's cost apart: new TLS
// connections per second, full and resumed. Every server side gets core 0 (nginx and ours behind
// it share it: one core's budget each), h2load gets core 1. Each server starts once and is
// loaded WARM seconds per part before the rounds; the parts and servers then run in turn, in
// reverse order every other round.
//   npm run bench:tls   (builds the service first)
//   ROUNDS=5 DURATION=5 WARM=10 SEED=2026 ONLY=h2-root,h2-mix   (ONLY: some of the parts below)
//   SERVICE=<a build's dist/server.js>   (measures that build instead of ../dist/server.js)
//   CPU_PROF=<dir>   (ours runs with node --cpu-prof, its profiles written to <dir> at the end)
import './lib/reference-node.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { requestMix, wrkScript } from './lib/mix.mjs';
import { SECRETS, cpuSeconds, machine, median, startChild } from './lib/measure.mjs';
import { report } from './lib/results.mjs';
import { CONCURRENCY, fullHandshakes, h2Load, mixGroups, resumedHandshakes, wrkLoad } from './lib/tls-load.mjs';
import { TLS_FILES, httpsText, startBehindNginx } from './lib/tls-servers.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = Number(process.env.DURATION ?? 5);
/** Seconds of each part every server gets after its start, before the rounds (its JIT's warm-up). */
const WARM = Number(process.env.WARM ?? 10);
const SEED = Number(process.env.SEED ?? 2026);
const SERVICE = resolve(process.env.SERVICE ?? '../dist/server.js');
const CPU_PROF = process.env.CPU_PROF && resolve(process.env.CPU_PROF);
const SERVER_CPU = 0;
const LOAD_CPU = 1;
const JSON_ACCEPT = { accept: 'application/json' };

// This process only starts h2load and reads /proc: on the load generator's core.
execFileSync('taskset', ['-p', '-c', String(LOAD_CPU), String(process.pid)], { stdio: 'ignore' });
const loadAtStart = os.loadavg();
const work = mkdtempSync(join(tmpdir(), 'bench-tls-'));
const requests = requestMix(4000, SEED);
const mixScript = join(work, 'mix.lua');
writeFileSync(mixScript, wrkScript(requests));
const mixByAccept = mixGroups(requests);

// ACCESS_LOG=0: the peers log no requests either; every 404 writes its error line (and incident
// line) as in bench:mix. LOG_MAX_BYTES: no day's file fills during a run.
const ourEnv = (name) => ({ ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: join(work, `log-${name}`), ACCESS_LOG: '0', LOG_MAX_BYTES: String(8 * 2 ** 30) });
const tlsEnv = { TLS_CERT: TLS_FILES.cert, TLS_KEY: TLS_FILES.key, HTTP2: '1' };
const ourNodeArgs = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : [];

// The exact bytes ours answers, for fastify to send: GET / as JSON, and the prod 404 page.
const probe = await startChild(SERVICE, [], { ...ourEnv('probe'), ...tlsEnv }, [], { cpu: SERVER_CPU });
const [BODY, PAGE_404] = await Promise.all([httpsText(`${probe.url}/`, JSON_ACCEPT), httpsText(`${probe.url}/probe`)]).finally(() => probe.stop());

const fastify = (name, http2) => () => startChild('servers/fastify-mix.mjs', [], {
  TLS_CERT: TLS_FILES.cert, TLS_KEY: TLS_FILES.key, HTTP2: http2 ? '1' : '0', BODY, PAGE_404, LOG_FILE: join(work, `${name}.log`),
}, [], { cpu: SERVER_CPU });
/** Each server's start, and what it does per request (for the notes). */
const SERVERS = {
  ours: {
    start: () => startChild(SERVICE, [], { ...ourEnv('ours'), ...tlsEnv }, ourNodeArgs, { cpu: SERVER_CPU }),
    label: 'ours (TLS in the process)',
  },
  'fastify-https': { start: fastify('fastify-https', false), label: 'fastify `https`' },
  'fastify-h2': { start: fastify('fastify-h2', true), label: 'fastify `http2` + `allowHTTP1`' },
  'nginx+ours': {
    start: () => startBehindNginx(SERVICE, ourEnv('behind-nginx'), join(work, 'nginx'), { cpu: SERVER_CPU, nodeArgs: ourNodeArgs }),
    label: 'nginx as shipped (keepalive 16) -> ours',
  },
  // The site keeps 16 idle upstream connections; under more requests at once than that, nginx
  // opens and closes a connection to ours for part of them. 128 covers every load here.
  'nginx-ka128+ours': {
    start: () => startBehindNginx(SERVICE, ourEnv('behind-nginx-ka128'), join(work, 'nginx-ka128'), { cpu: SERVER_CPU, nodeArgs: ourNodeArgs, keepalive: 128 }),
    label: 'nginx, keepalive 128 -> ours',
  },
};

const NGINX = ['nginx+ours', 'nginx-ka128+ours'];
const ALL = ['ours', 'fastify-https', 'fastify-h2', ...NGINX];
const H2 = ['ours', 'fastify-h2', ...NGINX];
const HANDSHAKES = ['ours', 'fastify-https', ...NGINX];
/** The parts: what is sent, over which protocol, to which servers. */
const ALL_PARTS = [
  { id: 'h1-root', title: '`GET /` (JSON), HTTPS/1.1', servers: ALL, kind: 'h1', load: { headers: JSON_ACCEPT, expect: '2xx' } },
  { id: 'h1-mix', title: 'realistic 404 mix, HTTPS/1.1', servers: ALL, kind: 'h1', load: { script: mixScript, expect: '4xx' } },
  { id: 'h2-root', title: '`GET /` (JSON), h2', servers: H2, kind: 'h2', groups: [{ headers: JSON_ACCEPT, paths: ['/'] }], expect: '2xx' },
  { id: 'h2-mix', title: 'realistic 404 mix, h2', servers: H2, kind: 'h2', groups: mixByAccept, expect: '4xx' },
  { id: 'full', title: 'new connections/s, full handshake', servers: HANDSHAKES, kind: 'full' },
  { id: 'resumed', title: 'new connections/s, resumed session', servers: HANDSHAKES, kind: 'resumed' },
];
const ONLY = process.env.ONLY?.split(',');
const PARTS = ALL_PARTS.filter((p) => !ONLY || ONLY.includes(p.id));
const NAMES = ALL.filter((name) => PARTS.some((p) => p.servers.includes(name)));

/** Resumed connections per run, per server: its warm-up rate times DURATION (h2load counts, see lib). */
const resumedCount = {};
/** One measurement of `part` on `server`: requests (or connections) per second and how many. */
async function measure(part, name, server, seconds) {
  if (part.kind === 'h1') return wrkLoad(server.url, { ...part.load, seconds, cpu: LOAD_CPU });
  if (part.kind === 'h2') return h2Load(server.url, part.groups, { seconds, cpu: LOAD_CPU, expect: part.expect });
  if (part.kind === 'full') return fullHandshakes(server.url, { seconds, cpu: LOAD_CPU, headers: JSON_ACCEPT });
  const count = resumedCount[name] ?? 2000;
  return resumedHandshakes(server.url, { count, cpu: LOAD_CPU, headers: JSON_ACCEPT });
}

/** CPU seconds the server's processes have used (nginx and ours behind it: both). */
const cpuOf = (server) => server.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);

const cells = PARTS.flatMap((part) => part.servers.map((name) => ({ part, name })));
const rps = Object.fromEntries(cells.map(({ part, name }) => [`${part.id} ${name}`, []]));
const cpu = Object.fromEntries(cells.map(({ part, name }) => [`${part.id} ${name}`, []]));
/** The share of its core the server side used during a measurement: below 1, the load generator limited it. */
const busy = Object.fromEntries(cells.map(({ part, name }) => [`${part.id} ${name}`, []]));
const running = {};
try {
  for (const name of NAMES) {
    running[name] = await SERVERS[name].start();
    for (const part of PARTS.filter((p) => p.servers.includes(name))) {
      const r = await measure(part, name, running[name], WARM);
      if (part.kind === 'resumed') resumedCount[name] = Math.max(500, Math.round((r.rps * DURATION) / 100) * 100);
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const { part, name } of round % 2 === 1 ? [...cells].reverse() : cells) {
      const server = running[name];
      const [c0, t0] = [cpuOf(server), performance.now()];
      const r = await measure(part, name, server, DURATION);
      const [used, wall] = [cpuOf(server) - c0, (performance.now() - t0) / 1000];
      rps[`${part.id} ${name}`].push(r.rps);
      cpu[`${part.id} ${name}`].push((used / r.done) * 1e6);
      busy[`${part.id} ${name}`].push(used / wall);
    }
  }
} finally {
  // A failed run leaves no server behind.
  for (const server of Object.values(running)) await server.stop();
}
rmSync(work, { recursive: true, force: true });
const loadAtEnd = os.loadavg();

// Ratios are medians of per-round ratios: within a round the servers run seconds apart.
const paired = (a, b) => a.map((x, i) => x / b[i]);
const fmt = (xs, digits = 0) => xs.map((x) => x.toFixed(digits)).join(', ');
const range = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
const load = (l) => l.map((x) => x.toFixed(1)).join(' / ');
const lines = [
  `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; load average (1 / 5 / 15 min) ${load(loadAtStart)} at the start, ${load(loadAtEnd)} at the end; each server started once and loaded ${WARM} s per part, then ${ROUNDS} interleaved rounds of ${DURATION} s; load pinned to core ${LOAD_CPU}: HTTPS/1.1 from wrk (1 thread, ${CONCURRENCY.h1.connections} connections), h2 and handshakes from h2load (h2: ${CONCURRENCY.h2.connections} connections × ${CONCURRENCY.h2.streams} streams); every server side pinned to core ${SERVER_CPU}; seed ${SEED}`,
  '',
  '| part | server | req/s or connections/s (median) | rounds | ours ÷ this (median; range of the rounds) | server CPU µs per request or connection (median) | this ÷ ours (CPU) | server core busy (median) |',
  '|---|---|---:|---|---:|---:|---:|---:|',
];
const key = (part, name) => `${part.id} ${name}`;
const ratio = (part, name) => paired(rps[key(part, 'ours')], rps[key(part, name)]);
const cpuRatio = (part, name) => paired(cpu[key(part, name)], cpu[key(part, 'ours')]);
for (const part of PARTS) {
  for (const name of part.servers) {
    const k = key(part, name);
    const vs = name === 'ours' ? ['', ''] : [`${median(ratio(part, name)).toFixed(2)}; ${range(ratio(part, name))}`, median(cpuRatio(part, name)).toFixed(2)];
    lines.push(`| ${part.title} | ${SERVERS[name].label} | ${median(rps[k]).toFixed(0)} | ${fmt(rps[k])} | ${vs[0]} | ${median(cpu[k]).toFixed(1)} | ${vs[1]} | ${(median(busy[k]) * 100).toFixed(0)} % |`);
  }
}

// The goals: at least as fast as fastify over h2; faster than ours behind nginx. A new
// connection's cost is read from CPU per connection: h2load's side of a handshake costs about as
// much as the server's, so its one core limits the rate of full handshakes (busy below 100 %).
const goals = [];
const goal = (partId, peer, wanted, test) => {
  const part = PARTS.find((p) => p.id === partId);
  if (!part) return;
  const byCpu = part.kind === 'full' || part.kind === 'resumed';
  const r = byCpu ? cpuRatio(part, peer) : ratio(part, peer);
  const what = byCpu ? `CPU per connection, ${SERVERS[peer].label} ÷ ours` : `req/s, ours ÷ ${SERVERS[peer].label}`;
  const met = test ? (test(median(r)) ? 'yes' : '**no**') : 'reported';
  goals.push(`| ${part.title}: ${what} | ${wanted} | ${median(r).toFixed(2)} (rounds ${range(r)}) | ${met} |`);
};
for (const id of ['h2-root', 'h2-mix']) goal(id, 'fastify-h2', '≥ 1.00', (x) => x >= 1);
for (const id of ['h1-root', 'h1-mix', 'h2-root', 'h2-mix']) for (const peer of NGINX) goal(id, peer, '> 1.00', (x) => x > 1);
for (const id of ['h1-root', 'h1-mix']) goal(id, 'fastify-https', 'none');
for (const id of ['full', 'resumed']) for (const peer of ['fastify-https', ...NGINX]) goal(id, peer, 'none');
lines.push('', '| figure | goal | median of the rounds | met? |', '|---|---|---|---|', ...goals);

const NOTES = `What each server does per request: \`GET /\` answers our JSON document; every other request
is answered as ours answers a 404 in prod (our HTML page unless a JSON type is preferred, the
problem document otherwise, the year-long cache headers) and writes the error line and, for a
typed problem, the incident line: ours through its daily file sink, fastify through pino's
asynchronous destination (servers/peer-404.mjs, as in bench:mix). No server logs requests
(ours: \`ACCESS_LOG=0\`). Ours serves HTTPS/1.1 on \`node:https\` and hands the connections that
chose h2 by ALPN to \`node:http2\`, one listener, and adds Strict-Transport-Security and
X-Request-Id; fastify \`https\` is \`node:https\`; fastify \`http2\` is Node's
\`http2.createSecureServer({ allowHTTP1: true })\` and its compatibility layer for both protocols.
"nginx -> ours" is the shipped site file (deploy/nginx/problem-service.conf) with h2 turned on at
its TLS listener (\`listen … ssl http2\`), nginx 1.22 with one worker and no access log,
\`keepalive_requests\` raised (h2load opens no new h2 connection after nginx's GOAWAY at 1,000
requests), proxying HTTP/1.1 with keep-alive to ours on plain HTTP, which reads the
X-Forwarded-* headers nginx adds (it trusts nginx's address). The site keeps 16 idle upstream
connections per worker: with more requests than that at once (32 here over HTTPS/1.1, 100 over
h2) nginx opens and closes a TCP connection to ours for some of them, which the "keepalive 128"
row removes. nginx answers the mix's \`/%2e%2e/…\` probes (83 of the 4,000 for seed 2026) 400
itself, without ours, and closes an HTTPS/1.1 connection after each. Fair share: two cores, one for
the load, so each server side gets one core, nginx and ours behind it sharing it; on a bigger
machine the cores nginx would take could as well run more instances of ours (\`WORKERS=n\`). Load: HTTPS/1.1 from wrk with bench:mix's
script (all 4,000 requests of lib/mix.mjs in order, each with its own headers); h2 from h2load,
which sends one header set per run, so the mix is cut in five groups by its kind of Accept, each
group its 800 paths in order with the user agent and Referer of its first request, five h2loads
at once sharing the 10 connections. Handshakes: "full" is four h2loads at a time, each of 100
clients making one connection (TLS 1.3, X25519, the EC P-256 test certificate) for one \`GET /\`
with \`Connection: close\`, started again until the round's seconds are over; "resumed" is 20 h2load
clients reconnecting for one such request each, resuming their TLS session after their first
connection (a TLS 1.3 resumption still does an X25519 exchange). h2load's side of a full handshake
costs about as much CPU as the server's, so full handshakes are limited by its one core ("busy"
below 100 %): read their cost from the server's CPU per connection. Ratios are medians of the
per-round ratios, the range is their spread over the rounds; server CPU is user and system time
of the server side's processes (nginx's worker and master too) from \`/proc\`, per request or
connection. Reproduce: \`cd bench && npm run bench:tls\`.`;
report('## HTTPS and HTTP/2', lines.join('\n'), NOTES);

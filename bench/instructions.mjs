// GET / in machine instructions per request, ours against the bare node:http handler, and the
// 404 flood with its log line, ours against fastify + pino: steady figures where CPU time drifts
// with the machine's speed mode (tens of percent between rounds).
// Each server runs under valgrind's callgrind (user-space instructions, the kernel not counted);
// a load of SMALL then of LARGE requests over 8 keep-alive connections; the difference divided
// by LARGE - SMALL leaves start-up, warm-up and JIT compiling out.
//   npm run bench:instructions [-- --write]   (builds the service first; needs valgrind)
//   BEFORE=<an older build's dist/server.js> adds it as "before"; ONLY=get or ONLY=flood runs one part;
//   ONLY=mix counts the realistic mix of bench:mix instead (lib/mix.mjs, `/` included, sent in order
//   and again from its start, each request with its method), the load on which a memo of the last
//   request has to prove it pays; MIX=ours,fastify+pino,hono+pino,node:http+pino,… picks servers.
//   STEADY=1 counts steady state only: WARM requests (12,000) run uninstrumented, then the count
//   runs over SMALL (2,000) and LARGE (6,000) requests in the same process (TurboFan still compiles
//   there: totals move by thousands between runs, a function's own count repeats);
//   with it PERF_MAP=1 names the JIT's functions (node --perf-basic-prof) and KEEP_DUMP=<file>
//   keeps each server's steady dump as <file>.<server> for callgrind_annotate.
import './lib/reference-node.mjs';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRETS, machine, startChild } from './lib/measure.mjs';
import { expectedStatus, probeOurs, requestMix } from './lib/mix.mjs';
import { progress, report } from './lib/results.mjs';

const STEADY = process.env.STEADY === '1';
const SMALL = Number(process.env.SMALL ?? (STEADY ? 2_000 : 5_000));
const LARGE = Number(process.env.LARGE ?? (STEADY ? 6_000 : 45_000));
const WARM = Number(process.env.WARM ?? 12_000);
const work = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
/** Ours as the peers run: no access log (`accessLog` '1': with it, against peers logging requests). */
const ours = (script, accessLog = '0') => ({ script, env: { ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: join(work, 'log'), ACCESS_LOG: accessLog } });

/**
 * `count` requests over 8 keep-alive connections, each sent when the last is answered; all must
 * get `status`. `requests` (methods, paths and headers) are sent in turn instead, when given,
 * each expecting the status ours gives it (lib/mix.mjs's expectedStatus).
 */
async function drive(url, count, status, headers, requests, from = 0) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let sent = 0;
  let answered = 0;
  let body = '';
  await new Promise((resolve, reject) => {
    const next = () => {
      if (sent >= count) return;
      const mixed = requests?.[(from + sent) % requests.length];
      sent++;
      http.request(mixed ? new URL(mixed.path, url) : url, { method: mixed?.method ?? 'GET', agent, headers: mixed ? mixed.headers : headers }, (res) => {
        const expected = mixed ? expectedStatus(mixed) : status;
        if (res.statusCode !== expected) reject(new Error(`${url}: ${res.statusCode}, expected ${expected}`));
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body = answered === 0 ? body + chunk : body));
        res.on('end', () => (++answered === count ? resolve() : next()));
      }).on('error', reject).end();
    };
    for (let i = 0; i < 8; i++) next();
  });
  agent.destroy();
  return body;
}

/**
 * Starts `script` under callgrind, its dumps in `out` (`valgrindArgs` and `nodeArgs` added);
 * resolves once it listens, with its URL and the promise of its exit.
 */
async function startUnderCallgrind(script, env, out, valgrindArgs = [], nodeArgs = []) {
  const child = spawn('valgrind', ['--tool=callgrind', ...valgrindArgs, `--callgrind-out-file=${join(out, 'cg.%p')}`, '--smc-check=all-non-file', process.execPath, '--single-threaded', ...nodeArgs, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const found = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited ${code} under valgrind (is valgrind installed?)`)));
  });
  return { child, url, exited };
}

/** Instructions the server ran from its start to its exit, `count` requests to `path` served. */
async function instructions({ script, env }, count, path, status, headers, requests) {
  const out = mkdtempSync(join(work, 'callgrind-'));
  const { child, url, exited } = await startUnderCallgrind(script, env, out);
  const body = await drive(`${url}${path}`, count, status, headers, requests);
  child.kill('SIGTERM');
  await exited;
  const file = readdirSync(out).map((f) => join(out, f))[0];
  const summary = /^summary: (\d+)$/m.exec(readFileSync(file, 'utf8'))?.[1];
  rmSync(out, { recursive: true, force: true });
  if (summary === undefined) throw new Error(`${script}: no callgrind summary`);
  return { total: Number(summary), body };
}

/** `callgrind_control` run against the server (`-i on` starts counting, `-d` dumps what it counted). */
function control(pid, ...args) {
  return new Promise((resolve, reject) => {
    const child = spawn('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`callgrind_control ${args.join(' ')}: ${code}`))));
  });
}

/**
 * Steady state: WARM requests uncounted, then SMALL, then LARGE - SMALL more, counted and
 * dumped apart in one process; the second dump over its requests is the steady count.
 */
async function steadyInstructions(name, { script, env }, path, status, headers, requests) {
  const out = mkdtempSync(join(work, 'callgrind-'));
  const nodeArgs = process.env.PERF_MAP === '1' ? ['--perf-basic-prof', '--logfile=/dev/null'] : [];
  const { child, url, exited } = await startUnderCallgrind(script, env, out, ['--instr-atstart=no'], nodeArgs);
  await drive(`${url}${path}`, WARM, status, headers, requests);
  // The server answers callgrind_control only when it runs: a request wakes it.
  const on = control(child.pid, '-i', 'on');
  await Promise.all([on, drive(`${url}${path}`, 8, status, headers, requests, WARM)]);
  await drive(`${url}${path}`, SMALL, status, headers, requests, WARM + 8);
  const first = control(child.pid, '-d');
  await Promise.all([first, drive(`${url}${path}`, 8, status, headers, requests, WARM + 8 + SMALL)]);
  const body = await drive(`${url}${path}`, LARGE - SMALL, status, headers, requests, WARM + 16 + SMALL);
  const second = control(child.pid, '-d');
  await Promise.all([second, drive(`${url}${path}`, 8, status, headers, requests, WARM + 16 + LARGE)]);
  child.kill('SIGTERM');
  await exited;
  // cg.<pid>.1 holds the first SMALL requests, cg.<pid>.2 the LARGE - SMALL after them.
  const file = join(out, readdirSync(out).find((f) => /^cg\.\d+\.2$/.test(f)) ?? 'none');
  const totals = /^(?:summary|totals): (\d+)$/m.exec(readFileSync(file, 'utf8'))?.[1];
  // KEEP_DUMP=<file> keeps the steady dump, for callgrind_annotate.
  if (process.env.KEEP_DUMP) copyFileSync(file, `${process.env.KEEP_DUMP}.${name}`);
  rmSync(out, { recursive: true, force: true });
  if (totals === undefined) throw new Error(`${script}: no callgrind totals`);
  return { perRequest: Number(totals) / (LARGE - SMALL), body };
}

/** Every request asks for JSON, as autocannon does in bench:http. */
const JSON_ACCEPT = { accept: 'application/json' };

async function perRequest(name, server, path = '/', status = 200, headers = JSON_ACCEPT, requests = undefined) {
  if (STEADY) {
    progress(`${name}: ${WARM} requests uncounted, then ${LARGE - SMALL} counted after ${SMALL} to ${requests ? 'the mix' : path}`);
    return steadyInstructions(name, server, path, status, headers, requests);
  }
  progress(`${name}: ${SMALL} requests to ${requests ? 'the mix' : path}`);
  const small = await instructions(server, SMALL, path, status, headers, requests);
  progress(`${name}: ${LARGE} requests to ${requests ? 'the mix' : path}`);
  const large = await instructions(server, LARGE, path, status, headers, requests);
  return { perRequest: (large.total - small.total) / (LARGE - SMALL), body: large.body };
}

/** Table rows: each server's count and `peer ÷ this`. */
const rowsAgainst = (results, peer) =>
  Object.entries(results).map(([name, r]) => `| ${name} | ${Math.round(r.perRequest).toLocaleString('en')} | ${(results[peer].perRequest / r.perRequest).toFixed(3)} |`);
const runLine = (what) =>
  `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; valgrind callgrind, (${LARGE.toLocaleString('en')} − ${SMALL.toLocaleString('en')} ${what})${STEADY ? ` after ${WARM.toLocaleString('en')} uncounted` : ''} over 8 keep-alive connections`;
const ONLY = process.env.ONLY;

if (ONLY === 'mix') {
  // bench:mix's mix, `/` included; the peers send ours' documents (lib/mix.mjs's probeOurs).
  const requests = requestMix(4000, Number(process.env.SEED ?? 2026), { home: true });
  const mix = (name, server) => perRequest(name, server, '/', 404, undefined, requests);
  const ourProbe = ours('../dist/server.js');
  const probe = await startChild(ourProbe.script, [], ourProbe.env);
  const documents = await probeOurs(probe.url);
  await probe.stop();
  const peer = (env) => ({ ...documents, LOG_FILE: join(work, 'pino.log'), ...env });
  // MIX=ours,ours+access counts those only (ours always, first);
  // with BEFORE, MIX=…,before+access counts the older build's access log too.
  const wanted = (name) => !process.env.MIX || process.env.MIX.split(',').includes(name);
  const results = { ours: await mix('ours', ours('../dist/server.js')) };
  if (wanted('fastify+pino')) results['fastify+pino'] = await mix('fastify+pino', { script: 'servers/fastify-mix.mjs', env: peer() });
  if (wanted('hono+pino')) results['hono+pino'] = await mix('hono+pino', { script: 'servers/hono-mix.mjs', env: peer() });
  if (wanted('node:http+pino')) results['node:http+pino'] = await mix('node:http+pino', { script: 'servers/node-mix.mjs', env: peer() });
  if (wanted('ours+access')) results['ours+access'] = await mix('ours+access', ours('../dist/server.js', '1'));
  if (wanted('fastify+pino+requests')) results['fastify+pino+requests'] = await mix('fastify+pino+requests', { script: 'servers/fastify-mix.mjs', env: peer({ REQUEST_LOG: '1' }) });
  if (process.env.BEFORE) results.before = await mix('before', ours(process.env.BEFORE));
  if (process.env.BEFORE && wanted('before+access')) results['before+access'] = await mix('before+access', ours(process.env.BEFORE, '1'));
  reportMix(rowsAgainst(results, results['fastify+pino'] ? 'fastify+pino' : 'ours'));
} else if (ONLY !== 'flood') {
  const results = { ours: await perRequest('ours', ours('../dist/server.js')) };
  // The bare handler writes our exact bytes.
  results.bare = await perRequest('bare', { script: 'servers/bare.mjs', env: { BODY: results.ours.body } });
  if (process.env.BEFORE) results.before = await perRequest('before', ours(process.env.BEFORE));
  reportGet(rowsAgainst(results, 'bare'));
}
if (ONLY !== 'get' && ONLY !== 'mix') {
  const flood = (name, server) => perRequest(name, server, '/flood-path', 404);
  const results = { ours: await flood('ours', ours('../dist/server.js')) };
  results['fastify+pino'] = await flood('fastify+pino', { script: 'servers/fastify-404.mjs', env: { LOG_FILE: join(work, 'pino.log') } });
  if (process.env.BEFORE) results.before = await flood('before', ours(process.env.BEFORE));
  reportFlood(rowsAgainst(results, 'fastify+pino'));
}
rmSync(work, { recursive: true, force: true });

function reportGet(rows) {
  report(
    '## GET / in instructions',
    [
      runLine('requests'),
      '',
      '| server | instructions per request | bare ÷ this |',
      '|---|---:|---:|',
      ...rows,
    ].join('\n'),
    `User-space machine instructions of the server process per \`GET /\` (JSON), from the difference of two
runs under valgrind's callgrind (${SMALL.toLocaleString('en')} and ${LARGE.toLocaleString('en')} requests) so that start-up, warm-up and
JIT compiling cancel out; V8 runs single-threaded under valgrind. Unlike CPU time, the count does
not move with the machine's speed mode, so small changes to the hot path show; the kernel's share
(the socket writes, about 40 % of the CPU time) is not in it, which is why "bare ÷ this" here is
lower than the same ratio by CPU time would be for the same code. Reproduce:
\`cd bench && npm run bench:instructions\` (needs valgrind).`,
  );
}

function reportFlood(rows) {
  report(
    '## 404 flood in instructions',
    [runLine('unrouted requests, each logged'), '', '| server | instructions per 404 | fastify+pino ÷ this |', '|---|---:|---:|', ...rows].join('\n'),
    `User-space machine instructions of the server process per 404 of the flood (\`GET /flood-path\`
asking for JSON, as in bench:http; one log line each: ours through its daily file sink, fastify
through pino's asynchronous destination; our six secret settings as long as real ones, so masking
runs), counted as for \`GET /\` above. The kernel's share is not in it, and there the two differ
most (pino writes its file more often than our sink, which gathers lines for 20 ms), so this ratio
is lower than the same ratio by CPU time. Reproduce: \`cd bench && ONLY=flood npm run
bench:instructions\`.`,
  );
}

function reportMix(rows) {
  report(
    '## Realistic 404 mix in instructions',
    [runLine('requests of the mix'), '', '| server | instructions per request | fastify+pino ÷ this |', '|---|---:|---:|', ...rows].join('\n'),
    `User-space machine instructions of the server process per request of the realistic mix of bench:mix
(4,000 distinct requests with their methods and headers, \`/\` among them; lib/mix.mjs), sent in order over 8
keep-alive connections, counted as for \`GET /\` above. Reproduce: \`cd bench && ONLY=mix npm run
bench:instructions\`.`,
  );
}

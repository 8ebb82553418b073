// What the access log costs on the realistic 404 mix, measured with both servers running at the
// same instant: ours with ACCESS_LOG=0 and ours with it on share one core (core 0), each loaded
// by its own wrk (both on core 1) over 32 connections. The kernel shares the core between the two
// servers, so the requests each completes in a round stand in the ratio of what each would
// complete alone, and a change of the machine's speed within a round (tens of percent on this
// kind of machine, from one second to the next) slows both alike instead of favouring whoever
// ran first. bench:mix runs the servers one after the other, so its access-log figure carries
// that drift.
//
// Steady state: both servers start once and are loaded for WARM seconds before the rounds. V8
// goes on compiling and re-compiling the hot path for about the first 150,000 requests of a
// process (node --trace-opt: some 100 functions optimised between its 2nd and 5th second under
// this load, none after its 12th); a round started a second after the processes measures that
// warm-up, in which the logged server has more code to compile. The first two seconds' ratio
// is reported too. LOG_MAX_BYTES is raised so that no day's file fills during the run (past it
// lines are counted, not written, which would make the logged server cheaper).
//   npm run bench:access-cost   (builds the service first)
//   ROUNDS=9 DURATION=5 WARM=20 SEED=2026; BEFORE=<an older build's dist/server.js> measures that build's log instead
import './lib/reference-node.mjs';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requestMix, wrkScript } from './lib/mix.mjs';
import { SECRETS, cpuSeconds, machine, median, startChild } from './lib/measure.mjs';
import { report } from './lib/results.mjs';

const run = promisify(execFile);
const ROUNDS = Number(process.env.ROUNDS ?? 9);
const DURATION = Number(process.env.DURATION ?? 5);
const WARM = Number(process.env.WARM ?? 20);
const SEED = Number(process.env.SEED ?? 2026);
const SCRIPT = process.env.BEFORE ?? '../dist/server.js';
const SERVER_CPU = 0;
const LOAD_CPU = 1;
/** No day's file fills during a run: 8 GiB. */
const LOG_MAX_BYTES = String(8 * 2 ** 30);

const work = mkdtempSync(join(tmpdir(), 'bench-access-cost-'));
const script = join(work, 'mix.lua');
writeFileSync(script, wrkScript(requestMix(4000, SEED)));
const env = (logDir, accessLog) => ({
  ...SECRETS, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0', VAR_DIR: join(work, 'var'), LOG_DIR: logDir, ACCESS_LOG: accessLog, LOG_MAX_BYTES,
});

/** One wrk run of the mix against `url`: requests completed. */
async function wrk(url, seconds) {
  const { stdout } = await run('taskset', ['-c', String(LOAD_CPU), 'wrk', '-t1', '-c32', `-d${seconds}s`, '-s', script, url]);
  const errors = /Socket errors: (.*)/.exec(stdout)?.[1];
  if (errors) throw new Error(`wrk socket errors: ${errors}`);
  return Number(/(\d+) requests in/.exec(stdout)[1]);
}

/** Lines in a log directory's files that satisfy `test`. */
const countLines = (dir, test) =>
  readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(test).length).reduce((a, b) => a + b, 0);

/** Both servers loaded at once for `seconds`: requests each completed and its CPU µs a request. */
async function together(servers, seconds) {
  const cpu0 = servers.map((s) => cpuSeconds(s.child.pid));
  const done = await Promise.all(servers.map((s) => wrk(s.url, seconds)));
  return done.map((requests, i) => ({ requests, cpuUs: ((cpuSeconds(servers[i].child.pid) - cpu0[i]) / requests) * 1e6 }));
}

const dirs = [mkdtempSync(join(work, 'off-')), mkdtempSync(join(work, 'on-'))];
const servers = await Promise.all([
  startChild(SCRIPT, [], env(dirs[0], '0'), [], { cpu: SERVER_CPU }),
  startChild(SCRIPT, [], env(dirs[1], '1'), [], { cpu: SERVER_CPU }),
]);
let answered = 0;
const first = await together(servers, 2);
const warm = await together(servers, WARM);
answered += first[1].requests + warm[1].requests;
const off = { requests: [], cpu: [] };
const on = { requests: [], cpu: [] };
for (let round = 0; round < ROUNDS; round++) {
  const [offRound, onRound] = await together(servers, DURATION);
  off.requests.push(offRound.requests);
  on.requests.push(onRound.requests);
  off.cpu.push(offRound.cpuUs);
  on.cpu.push(onRound.cpuUs);
  answered += onRound.requests;
}
await Promise.all(servers.map((s) => s.stop()));
const lost = Math.max(0, answered - countLines(dirs[1], (l) => l.startsWith('{"time":"')));
rmSync(work, { recursive: true, force: true });

const ratios = on.requests.map((r, i) => r / off.requests[i]);
const cpuRatios = on.cpu.map((c, i) => c / off.cpu[i]);
const share = (xs) => xs.map((x) => x.toFixed(3)).join(', ');
const lines = [
  `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; both servers started once, loaded ${WARM} s at once before ${ROUNDS} rounds of ${DURATION} s, both at once on core ${SERVER_CPU}, one wrk each (1 thread, 32 connections) on core ${LOAD_CPU}; seed ${SEED}`,
  '',
  '| | requests a round (median) | CPU µs/request (median) |',
  '|---|---:|---:|',
  `| ours, ACCESS_LOG=0 | ${median(off.requests).toFixed(0)} | ${median(off.cpu).toFixed(1)} |`,
  `| ours, ACCESS_LOG=1 | ${median(on.requests).toFixed(0)} | ${median(on.cpu).toFixed(1)} |`,
  '',
  `Requests with the log ÷ without, by round: ${share(ratios)}; median **${median(ratios).toFixed(3)}**: the access log costs ${((1 - median(ratios)) * 100).toFixed(1)} % of the mix's throughput in steady state (goal: at most 10 %). CPU per request with ÷ without, median ${median(cpuRatios).toFixed(3)}. In the processes' first two seconds, while V8 still compiles: ${(first[1].requests / first[0].requests).toFixed(3)}. Access lines lost: ${lost}.`,
].join('\n');
report('## The access log\'s cost, both servers at once', lines, `Both servers run the same build (${SCRIPT}). Reproduce: \`cd bench && npm run bench:access-cost\`.`);

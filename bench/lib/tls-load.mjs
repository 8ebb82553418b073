// The load of bench:tls, pinned to the load generator's core: HTTPS/1.1 from wrk (one request at
// a time on each connection, the whole mix with each request's own headers, as bench:mix sends it),
// h2 from h2load (nghttp2's load generator, several streams on each connection), and new TLS
// connections per second from h2load.
// h2load is not used for HTTPS/1.1: in its duration mode, a client whose connection the server
// closes (nginx closes one after answering a `/%2e%2e/…` probe 400 itself) reconnects and the run
// never ends.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Connections (and streams on each) as bench:tls runs them; the h2 mix's groups share them out. */
export const CONCURRENCY = Object.freeze({
  h1: { connections: 32, streams: 1 },
  h2: { connections: 10, streams: 10 },
});

/**
 * The realistic mix (lib/mix.mjs) as h2load can send it. h2load sends GET only, with one header
 * set per run, so the mix's GET requests to unrouted paths are taken (its HEAD and OPTIONS
 * requests and any for `/` left out) and cut in five groups by their kind of Accept (request i of
 * the mix has kind i mod 5); each group keeps its paths in order and carries the headers of its
 * first request (user agent, and Referer, Accept-Language or cookies when that one has them).
 */
export function mixGroups(requests, kinds = 5) {
  return Array.from({ length: kinds }, (_, kind) => {
    const own = requests.filter((r, i) => i % kinds === kind && (r.method ?? 'GET') === 'GET' && r.path !== '/' && !r.path.startsWith('/?'));
    return { headers: own[0].headers, paths: own.map((r) => r.path) };
  });
}

const run = promisify(execFile);
const headerArgs = (headers) => Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);

/**
 * One wrk run over HTTPS/1.1 for `seconds`: with `script` (lib/mix.mjs's wrkScript) the mix, else
 * `GET /` with `headers`. Throws on socket errors, or when the answers are not all `expect`.
 */
export async function wrkLoad(url, { script, headers = {}, seconds, cpu, expect }) {
  const args = ['-c', String(cpu), 'wrk', '-t1', `-c${CONCURRENCY.h1.connections}`, `-d${seconds}s`, ...headerArgs(headers), ...(script ? ['-s', script] : []), `${url}/`];
  const { stdout } = await run('taskset', args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const done = Number(/(\d+) requests in/.exec(stdout)?.[1]);
  if (!Number.isFinite(rps) || !Number.isFinite(done)) throw new Error(`wrk printed no summary:\n${stdout}`);
  const errors = /Socket errors: (.*)/.exec(stdout)?.[1];
  if (errors) throw new Error(`${url}: wrk socket errors: ${errors}`);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  if (expect === '2xx' ? non2xx > 0 : non2xx !== done) throw new Error(`${url}: ${non2xx} of ${done} answers not 2xx or 3xx, expected ${expect}`);
  return { rps, done };
}

function runH2load(args, cpu) {
  return new Promise((resolve, reject) => {
    const child = spawn('taskset', ['-c', String(cpu), 'h2load', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', (e) => reject(e.code === 'ENOENT' ? new Error('h2load is missing: apt-get install nghttp2-client') : e));
    // 'close', not 'exit': the output may still be unread when the process has exited.
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`h2load ${args.join(' ')} exited ${code}: ${err || out}`))));
  });
}

/** h2load's summary: requests/s, requests done, status classes, and the requests that failed to complete. */
function parseSummary(out) {
  const finished = /finished in ([\d.]+)(ms|s), ([\d.]+) req\/s/.exec(out);
  const requests = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out);
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out);
  if (!finished || !requests || !codes) throw new Error(`h2load printed no summary:\n${out}`);
  return {
    seconds: Number(finished[1]) / (finished[2] === 'ms' ? 1000 : 1),
    rps: Number(finished[3]),
    done: Number(requests[3]),
    errored: Number(requests[6]) + Number(requests[7]),
    status: { '2xx': Number(codes[1]), '3xx': Number(codes[2]), '4xx': Number(codes[3]), '5xx': Number(codes[4]) },
  };
}

/**
 * `groups` ({ headers, paths }) sent to `url` over h2 at once for `seconds` after `warmUp` seconds
 * not counted, one h2load per group, the connections shared out evenly. Resolves with the summed
 * requests/s and requests done; throws unless every answer has the status class `expect`.
 */
export async function h2Load(url, groups, { seconds, warmUp = 1, cpu, expect }) {
  const { connections, streams } = CONCURRENCY.h2;
  const perGroup = Math.max(1, Math.floor(connections / groups.length));
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-uris-'));
  try {
    const runs = groups.map(({ headers, paths }, i) => {
      // h2load takes the scheme, host and port from the first URI of the file.
      const file = join(dir, `group-${i}.txt`);
      writeFileSync(file, `${paths.map((p) => url + p).join('\n')}\n`);
      const args = ['-c', String(perGroup), '-m', String(streams), '-D', String(seconds), '--warm-up-time', String(warmUp), '-i', file, ...headerArgs(headers)];
      return runH2load(args, cpu);
    });
    const summaries = (await Promise.all(runs)).map(parseSummary);
    for (const s of summaries) {
      // Requests still in flight when the seconds are over count as done without a status.
      const wrong = Object.entries(s.status).filter(([status]) => status !== expect).reduce((sum, [, n]) => sum + n, 0);
      if (wrong > 0 || s.errored > 0) throw new Error(`${url}: ${wrong} answers not ${expect}, ${s.errored} errored or timed out (${JSON.stringify(s.status)})`);
    }
    return { rps: summaries.reduce((a, s) => a + s.rps, 0), done: summaries.reduce((a, s) => a + s.done, 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const closeHeaders = (headers) => headerArgs({ ...headers, connection: 'close' });

/**
 * New TLS connections per second, each a full handshake and one HTTP/1.1 `GET /` with
 * `Connection: close`: `lanes` h2load processes at once, each run again and again until `seconds`
 * have passed, each run `clients` connections of one request (a client of h2load that connects
 * again resumes its TLS session, so every client connects once).
 */
export async function fullHandshakes(url, { seconds, lanes = 4, clients = 100, cpu, headers = {} }) {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (performance.now() < deadline) {
      const s = parseSummary(await runH2load(['--h1', '-c', String(clients), '-n', String(clients), ...closeHeaders(headers), `${url}/`], cpu));
      if (s.status['2xx'] !== clients || s.errored > 0) throw new Error(`${url}: ${s.status['2xx']} of ${clients} new connections answered 2xx, ${s.errored} errored`);
      done += clients;
    }
  }));
  return { rps: done / ((performance.now() - start) / 1000), done };
}

/**
 * Resumed TLS connections per second: `count` connections from `clients` at a time, each one
 * HTTP/1.1 `GET /` with `Connection: close`; h2load's clients resume their session on every
 * connection after their first (TLS 1.3 session tickets), as a returning browser does.
 * h2load's duration mode never ends when every answer closes its connection, hence a count.
 */
export async function resumedHandshakes(url, { count, clients = 20, cpu, headers = {} }) {
  const s = parseSummary(await runH2load(['--h1', '-c', String(clients), '-n', String(count), ...closeHeaders(headers), `${url}/`], cpu));
  if (s.status['2xx'] !== count || s.errored > 0) throw new Error(`${url}: ${s.status['2xx']} of ${count} resumed connections answered 2xx, ${s.errored} errored`);
  return { rps: count / s.seconds, done: count };
}

// Static files: our service against fastify + @fastify/static, serving the same files.
//
//   cd bench && npm install && npm run bench:static          print the figures
//   npm run bench:static -- --write                          also update RESULTS.md
//   npm run bench:static -- --rounds 5 --duration 5          more or longer rounds
//
// Each server runs in its own child process; autocannon (the load generator) runs in this
// one. Rounds are interleaved (ours, theirs, ours, theirs…) after a warm-up of each, so slow
// drift of the machine's speed hits both alike; figures are medians over rounds. Then the
// peak RSS (VmHWM) of a fresh server process is read before and after it streams a 256 MiB
// sparse file to a client that reads as fast as it can.
//
// The same file is the child servers: `node --import tsx static.mjs serve ours|fastify <dir>`.
import './lib/reference-node.mjs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECRETS, cpuSeconds, median, peakRssMiB, startChild } from './lib/measure.mjs';
import { writeResultsSection } from './lib/results.mjs';

const SCRIPT = fileURLToPath(import.meta.url);
const HEADING = '## Static files';
const FILES = [
  { name: 'small.bin', label: '10 KiB', size: 10 * 1024 },
  { name: 'large.bin', label: '1 MiB', size: 1024 * 1024 },
];
const BIG = { name: 'big.bin', size: 256 * 1024 * 1024 };
const CONNECTIONS = 16;

if (process.argv[2] === 'serve') {
  await serve(process.argv[3], process.argv[4]);
} else {
  await main();
}

/** Child mode: one server on a free port, printing `listening on <url>`. */
async function serve(kind, publicDir) {
  let url;
  if (kind === 'ours') {
    const { parseConfig } = await import('../src/config/config.ts');
    const { startServer } = await import('../src/server.ts');
    const config = parseConfig({ ...SECRETS, APP_ENV: 'prod', PORT: '0', PUBLIC_DIR: publicDir, VAR_DIR: join(publicDir, '..', 'var') }, process.cwd());
    url = (await startServer({ config })).url;
  } else {
    const { default: fastify } = await import('fastify');
    const { default: fastifyStatic } = await import('@fastify/static');
    const app = fastify({ logger: false });
    await app.register(fastifyStatic, { root: publicDir, prefix: '/static/' });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  }
  process.on('SIGTERM', () => process.exit(0));
  process.stdout.write(`listening on ${url}\n`);
}

/** Our service or the peer, as a child process of this same file (run through tsx). */
function startServerProcess(kind, publicDir) {
  return startChild(SCRIPT, ['serve', kind, publicDir], {}, ['--import', 'tsx']).then((server) => ({ ...server, kind }));
}

function cpuMs(pid) {
  return cpuSeconds(pid) * 1000;
}

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

/** GET a path, resolving with the status and the body's length and bytes (bodies here are small). */
function get(url, path) {
  return new Promise((resolve, reject) => {
    http
      .get(url + path, { agent: false }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

/** Streams a path to nowhere as fast as the client can read; resolves with the bytes read. */
function drain(url, path) {
  return new Promise((resolve, reject) => {
    http
      .get(url + path, { agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length));
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** One autocannon run against a server: req/s, MB/s, and the server's CPU ms per request. */
async function load(server, path, duration) {
  const { default: autocannon } = await import('autocannon');
  const cpuBefore = cpuMs(server.child.pid);
  const result = await autocannon({ url: server.url + path, connections: CONNECTIONS, duration });
  const cpu = cpuMs(server.child.pid) - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${server.kind} ${path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { rps: result.requests.average, mbps: result.throughput.average / 1e6, cpuPerRequest: cpu / result.requests.total };
}

async function main() {
  const rounds = option('rounds', 5);
  const duration = option('duration', 5);
  const work = mkdtempSync(join(tmpdir(), 'bench-static-'));
  const publicDir = join(work, 'public');
  mkdirSync(publicDir);
  for (const file of FILES) writeFileSync(join(publicDir, file.name), randomBytes(file.size));
  writeFileSync(join(publicDir, BIG.name), '');
  truncateSync(join(publicDir, BIG.name), BIG.size); // sparse: no disk blocks, no page cache to fill

  try {
    const servers = [await startServerProcess('ours', publicDir), await startServerProcess('fastify', publicDir)];
    for (const server of servers) {
      for (const file of FILES) {
        const res = await get(server.url, `/static/${file.name}`);
        const expected = readFileSync(join(publicDir, file.name));
        if (res.status !== 200 || !res.body.equals(expected)) throw new Error(`${server.kind} does not serve ${file.name} right`);
      }
    }
    const figures = Object.fromEntries(FILES.map((f) => [f.name, { ours: [], fastify: [] }]));
    for (const server of servers) for (const file of FILES) await load(server, `/static/${file.name}`, 2); // warm-up
    for (let round = 1; round <= rounds; round++) {
      for (const file of FILES) {
        for (const server of servers) {
          const r = await load(server, `/static/${file.name}`, duration);
          figures[file.name][server.kind].push(r);
          console.error(
            `round ${round}/${rounds} ${file.label} ${server.kind}: ${r.rps.toFixed(0)} req/s, ${r.mbps.toFixed(1)} MB/s, ` +
              `${r.cpuPerRequest.toFixed(3)} CPU ms/request`,
          );
        }
      }
    }
    await Promise.all(servers.map((server) => server.stop()));

    const memory = {};
    for (const kind of ['ours', 'fastify']) {
      const server = await startServerProcess(kind, publicDir);
      await get(server.url, `/static/${FILES[0].name}`); // one request first, so both have served
      const before = peakRssMiB(server.child.pid);
      const started = performance.now();
      const bytes = await drain(server.url, `/static/${BIG.name}`);
      const seconds = (performance.now() - started) / 1000;
      const after = peakRssMiB(server.child.pid);
      await server.stop();
      if (bytes !== BIG.size) throw new Error(`${kind} sent ${bytes} of ${BIG.size} bytes`);
      memory[kind] = { before, after, seconds };
    }
    const report = formatReport(figures, memory, rounds, duration);
    console.log(report);
    if (process.argv.includes('--write')) writeResultsSection(HEADING, report);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function formatReport(figures, memory, rounds, duration) {
  const loadAverage = loadavg()[0].toFixed(1);
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  const date = execFileSync('date', { encoding: 'utf8' }).trim();
  const lines = [
    HEADING,
    '',
    `${date}; ${cpu}, ${cpus().length} cores, Node ${process.version}. Both servers and the load`,
    `generator (autocannon, ${CONNECTIONS} connections) share these ${cpus().length} cores, so the figures compare the two`,
    'servers on this machine; they are not the capacity of either. Our service runs from source',
    `through tsx in prod (APP_ENV=prod); the peer is fastify + @fastify/static with default options.`,
    `${rounds} interleaved rounds of ${duration} s per file and server after a 2 s warm-up; medians.`,
    `1-minute load average ${loadAverage} at the end: other work on the machine moves req/s from round`,
    'to round; the server CPU time per request (user + system, from /proc) is steadier.',
    '`npm run bench:static -- --write` (in bench/) reproduces them.',
    '',
    '| file | server | req/s | MB/s | CPU ms/request |',
    '|---|---|---:|---:|---:|',
  ];
  const ratios = [];
  for (const file of FILES) {
    const f = figures[file.name];
    const m = (kind, key) => median(f[kind].map((r) => r[key]));
    for (const [kind, name] of [['ours', 'ours'], ['fastify', '@fastify/static']]) {
      lines.push(`| ${file.label} | ${name} | ${m(kind, 'rps').toFixed(0)} | ${m(kind, 'mbps').toFixed(1)} | ${m(kind, 'cpuPerRequest').toFixed(3)} |`);
    }
    // The median of per-round ratios: both runs of a round saw about the same machine.
    const ratio = (key) => median(f.ours.map((r, i) => r[key] / f.fastify[i][key])).toFixed(2);
    ratios.push(`| ${file.label} | ${ratio('rps')} | ${ratio('mbps')} | ${ratio('cpuPerRequest')} |`);
  }
  lines.push(
    '',
    'Ratios ours / @fastify/static, median of the per-round ratios (above 1 is better for req/s and',
    'MB/s, below 1 for CPU):',
    '',
  );
  lines.push('| file | req/s | MB/s | CPU ms/request |', '|---|---:|---:|---:|', ...ratios);
  lines.push(
    '',
    'Peak RSS (VmHWM of the server process) streaming a 256 MiB sparse file to one client:',
    '',
    '| server | peak RSS before | peak RSS after | transfer time |',
    '|---|---:|---:|---:|',
  );
  for (const [kind, name] of [['ours', 'ours'], ['fastify', '@fastify/static']]) {
    const m = memory[kind];
    lines.push(`| ${name} | ${m.before.toFixed(1)} MiB | ${m.after.toFixed(1)} MiB | ${m.seconds.toFixed(2)} s |`);
  }
  return lines.join('\n') + '\n';
}


// How exact the shared limits are when two instances race: how many requests past the limit two
// instances let through, with the limits kept in files on one volume (REDIS_URL unset; one
// PUBLIC_DIR and one <VAR_DIR>/poster-rate shared, as test/e2e/several-instances.test.ts sets
// them) and with the limits kept in Redis (REDIS_URL on both, a local redis-server).
//
// Each round starts two fresh instances (src/ through tsx) on one empty shared store, then:
//   - rate: RACERS concurrent POSTs of one token subject, every other one to each instance; an
//     admitted request answers 422 (the body is `{}`: nothing rendered), a refused one 429.
//   - store: POSTERS concurrent distinct posters, every other one to each instance, with
//     POSTER_MAX_BYTES set to hold three and a half of them; bytes written are those of the files.
//
//   cd bench && node --import tsx limits-race.mjs                 both modes, 5 rounds each
//   node --import tsx limits-race.mjs --mode files                 one mode (files | redis)
//   node --import tsx limits-race.mjs --rounds 9 --racers 40 --posters 16
//   node --import tsx limits-race.mjs --write                      also update RESULTS.md
//
// The redis mode needs redis-server and the REDIS_URL setting in the service; without the
// setting the instances ignore it and count on their own (the figures then say so).
import './lib/reference-node.mjs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueToken, loadKeyPair, writeKeyPair } from '../src/jwt/index.ts';
import { posterFileName, renderPoster } from '../src/poster/library.ts';
import { machine } from './lib/measure.mjs';
import { progress, report } from './lib/results.mjs';

const HEADING = '## Shared limits under a race (two instances)';
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const ROUNDS = Number(option('--rounds')) || 5;
const RACERS = Number(option('--racers')) || 24;
const POSTERS = Number(option('--posters')) || 12;
const MODES = option('--mode') ? [option('--mode')] : ['files', 'redis'];
const RATE_LIMIT = 5;
const PASS = 'limits race passphrase';
const REDIS_PASSWORD = 'limits race redis';
const SERVER = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const WINDOW_MS = 60_000;

for (const mode of MODES) if (mode !== 'files' && mode !== 'redis') throw new Error(`--mode ${mode}: files or redis`);

/** A free loopback port, chosen by the kernel and released. */
async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a program and resolves once its output matches `ready` (with the match). */
function startProgram(command, commandArgs, env, ready) {
  const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const look = (c) => {
      output += c;
      const match = ready.exec(output);
      if (match) resolve({ child, match, stop: () => stopProgram(child) });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('error', (err) => reject(err.code === 'ENOENT' ? new Error(`${command} is not installed (scripts/install-test-tools)`) : err));
    child.on('exit', (code) => reject(new Error(`${command} exited ${code} before it was ready: ${output}`)));
  });
}

function stopProgram(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  return exited;
}

/** One POST, resolving with its status. */
function post(url, token, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/api/posters`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** The most of `sizes` an exact limit could admit: the smallest first. */
function mostThatFit(sizes, limit) {
  let total = 0;
  let count = 0;
  for (const size of [...sizes].sort((a, b) => a - b)) {
    if (total + size > limit) break;
    total += size;
    count++;
  }
  return count;
}

/** One round of one mode: two fresh instances on an empty shared store. */
async function round(mode, index, { dir, keyPaths, privateKey, redisUrl }) {
  const roundDir = join(dir, `${mode}-${index}`);
  const publicDir = join(roundDir, 'public');
  const sharedRate = join(roundDir, 'shared-poster-rate');
  mkdirSync(sharedRate, { recursive: true });
  const specs = Array.from({ length: POSTERS }, (_, i) => ({ title: `Race ${mode} ${index} poster ${i}`, quality: 30 }));
  const sizes = await Promise.all(specs.map(async (spec) => (await renderPoster(spec)).length));
  const limit = sizes[0] + sizes[1] + sizes[2] + Math.floor(sizes[3] / 2);
  const instances = await Promise.all([0, 1].map(async (n) => {
    const varDir = join(roundDir, `var-${n}`);
    mkdirSync(varDir, { recursive: true });
    if (mode === 'files') symlinkSync(sharedRate, join(varDir, 'poster-rate'));
    const env = {
      PATH: process.env.PATH,
      APP_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      VAR_DIR: varDir,
      PUBLIC_DIR: publicDir,
      POSTER_API: '1',
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
      POSTER_MAX_BYTES: String(limit),
      POSTER_RATE_LIMIT: String(RATE_LIMIT),
      // A database of its own per round: every round starts with nothing counted.
      ...(mode === 'redis' ? { REDIS_URL: `${redisUrl}/${index + 1}` } : {}),
    };
    return startProgram(process.execPath, ['--import', 'tsx', SERVER], env, /^listening on (http:\/\/\S+)\n/m);
  }));
  const urls = instances.map((i) => i.match[1]);
  try {
    // The rate race, inside one window (a window's end would let twice the limit through).
    let admitted;
    for (;;) {
      if (WINDOW_MS - (Date.now() % WINDOW_MS) < 5_000) await new Promise((resolve) => setTimeout(resolve, 5_500));
      const window = Math.floor(Date.now() / WINDOW_MS);
      const token = await issueToken(privateKey, `rate-${mode}-${index}-${window}`, 600, Date.now());
      const statuses = await Promise.all(Array.from({ length: RACERS }, (_, i) => post(urls[i % 2], token, '{}')));
      if (Math.floor(Date.now() / WINDOW_MS) !== window) continue;
      const odd = statuses.filter((s) => s !== 422 && s !== 429);
      if (odd.length > 0) throw new Error(`rate race: unexpected statuses ${odd.join(' ')}`);
      admitted = statuses.filter((s) => s === 422).length;
      break;
    }
    // The store race: distinct subjects, so only POSTER_MAX_BYTES refuses.
    const tokens = await Promise.all(specs.map((_, i) => issueToken(privateKey, `store-${mode}-${index}-${i}`, 600, Date.now())));
    const statuses = await Promise.all(specs.map((spec, i) => post(urls[i % 2], tokens[i], JSON.stringify(spec))));
    const odd = statuses.filter((s) => s !== 201 && s !== 507);
    if (odd.length > 0) throw new Error(`store race: unexpected statuses ${odd.join(' ')}`);
    const names = new Set(specs.map(posterFileName));
    const files = readdirSync(join(publicDir, 'posters')).filter((name) => names.has(name));
    const written = sum(files.map((name) => statSync(join(publicDir, 'posters', name)).size));
    return { admitted, limit, written, posters: files.length, fit: mostThatFit(sizes, limit) };
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'limits-race-'));
  let redis;
  try {
    const keyPaths = { secretKeyPath: join(dir, 'jwt', 'private.pem'), publicKeyPath: join(dir, 'jwt', 'public.pem') };
    writeKeyPair(keyPaths, PASS, false);
    const { privateKey } = loadKeyPair(keyPaths, PASS);
    let redisUrl;
    if (MODES.includes('redis')) {
      const port = await freePort();
      redis = await startProgram('redis-server', [
        '--bind', '127.0.0.1', '--port', String(port), '--requirepass', REDIS_PASSWORD,
        '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--logfile', '',
      ], { PATH: process.env.PATH }, /Ready to accept connections/);
      redisUrl = `redis://:${encodeURIComponent(REDIS_PASSWORD)}@127.0.0.1:${port}`;
    }
    const rows = [];
    for (const mode of MODES) {
      for (let i = 0; i < ROUNDS; i++) {
        progress(`${mode} round ${i + 1}/${ROUNDS}`);
        const r = await round(mode, i, { dir, keyPaths, privateKey, redisUrl });
        rows.push({ mode, round: i + 1, ...r });
      }
    }
    const lines = [
      `${machine()}; ${ROUNDS} rounds a mode; two instances (src/ through tsx) on loopback.`,
      '',
      `| mode | round | rate: admitted of ${RACERS} (limit ${RATE_LIMIT}) | past the rate limit | store: bytes written / POSTER_MAX_BYTES | posters written of ${POSTERS} (most that fit) | posters past what fits |`,
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.mode} | ${r.round} | ${r.admitted} | ${r.admitted - RATE_LIMIT} | ${r.written} / ${r.limit} (${((100 * r.written) / r.limit).toFixed(1)} %) | ${r.posters} (${r.fit}) | ${Math.max(0, r.posters - r.fit)} |`),
      '',
      ...MODES.map((mode) => {
        const mine = rows.filter((r) => r.mode === mode);
        const over = mine.filter((r) => r.written > r.limit);
        return `- ${mode}: rate limit exceeded in ${mine.filter((r) => r.admitted > RATE_LIMIT).length} of ${mine.length} rounds (at most ${Math.max(...mine.map((r) => r.admitted - RATE_LIMIT))} past it); ` +
          `store over POSTER_MAX_BYTES in ${over.length} of ${mine.length} rounds (at most ${Math.max(0, ...mine.map((r) => r.written - r.limit))} bytes; posters past what fits: at most ${Math.max(0, ...mine.map((r) => r.posters - r.fit))}).`;
      }),
    ];
    report(HEADING, lines.join('\n'), [
      'files: REDIS_URL unset, one PUBLIC_DIR (the ledger `posters/.usage`) and one `poster-rate` directory shared by both;',
      'redis: REDIS_URL on both instances. `cd bench && node --import tsx limits-race.mjs` (`--mode`, `--rounds`, `--racers`, `--posters`).',
    ].join('\n'));
  } finally {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

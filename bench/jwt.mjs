// A JWT-protected route with the same token reused, with the cache of verified tokens and
// without it (JWT_CACHE_SIZE=0), interleaved. The route is POST /api/posters; the request carries
// a valid token and a text body, so it is answered 415 right after the guard: the figure is the
// cost of authentication, not of rendering.
//   npm run bench:jwt   (builds the service first)
import './lib/reference-node.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { issueToken, loadKeyPair, writeKeyPair } from '../dist/jwt/index.js';
import { cpuSeconds, machine, median, startChild } from './lib/measure.mjs';
import { report } from './lib/results.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = Number(process.env.DURATION ?? 5);
const work = mkdtempSync(join(tmpdir(), 'bench-jwt-'));
const keys = { JWT_SECRET_KEY: join(work, 'private.pem'), JWT_PUBLIC_KEY: join(work, 'public.pem'), JWT_PASSPHRASE: 'bench passphrase' };
writeKeyPair({ secretKeyPath: keys.JWT_SECRET_KEY, publicKeyPath: keys.JWT_PUBLIC_KEY }, keys.JWT_PASSPHRASE, false);
const token = await issueToken(loadKeyPair({ secretKeyPath: keys.JWT_SECRET_KEY, publicKeyPath: keys.JWT_PUBLIC_KEY }, keys.JWT_PASSPHRASE).privateKey, 'bench', 3600, Date.now());

const env = (cacheSize) => ({
  ...keys,
  APP_ENV: 'test',
  POSTER_API: '1',
  PORT: '0',
  VAR_DIR: join(work, 'var'),
  LOG_DIR: join(work, 'log'),
  PUBLIC_DIR: join(work, 'public'),
  JWT_CACHE_SIZE: String(cacheSize),
});

const results = { cache: [], none: [] };
const cpu = { cache: [], none: [] };
for (let round = 0; round <= ROUNDS; round++) {
  for (const mode of ['cache', 'none']) {
    const server = await startChild('../dist/server.js', [], env(mode === 'cache' ? 10_000 : 0));
    const c0 = cpuSeconds(server.child.pid);
    const r = await autocannon({
      url: `${server.url}/api/posters`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: 'x',
      connections: 16,
      duration: round === 0 ? 2 : DURATION,
    });
    const used = cpuSeconds(server.child.pid) - c0;
    await server.stop();
    if (r['4xx'] !== r.requests.total && r.requests.total > 0 && r['4xx'] < r.requests.total * 0.99) throw new Error(`unexpected answers: ${JSON.stringify(r.statusCodeStats)}`);
    if (round > 0) {
      results[mode].push(r.requests.average);
      cpu[mode].push((used / r.requests.total) * 1e6);
    }
  }
}
rmSync(work, { recursive: true, force: true });
const NOTES = `The protected route is \`POST /api/posters\` with a valid token and a \`text/plain\` body: it is
answered 415 right after the bearer guard, so the figure is the price of authentication (P-521
verification costs about 1.8 ms of CPU per request without the cache). Reproduce:
\`cd bench && npm run bench:jwt\`.`;

const c = median(results.cache);
const n = median(results.none);
const out = [];
out.push(`Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; ${machine()}; ${ROUNDS} interleaved rounds of ${DURATION} s, autocannon, 16 connections, one token reused`);
out.push('');
out.push('| protected route, same token | req/s (median) | rounds | server CPU per request (µs) |');
out.push('|---|---:|---|---:|');
out.push(`| with the verified-token cache | ${c.toFixed(0)} | ${results.cache.map((x) => x.toFixed(0)).join(', ')} | ${median(cpu.cache).toFixed(0)} |`);
out.push(`| without (JWT_CACHE_SIZE=0) | ${n.toFixed(0)} | ${results.none.map((x) => x.toFixed(0)).join(', ')} | ${median(cpu.none).toFixed(0)} |`);
out.push(`| ratio | ${(c / n).toFixed(1)}x | | |`);
report('## JWT token cache', out.join('\n'), NOTES);

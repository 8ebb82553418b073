/**
 * Several machines sharing their limits on Redis: two instances of the service, run as programs,
 * each in a network namespace of its own (its own address, as on its own machine), each with its
 * own VAR_DIR, one PUBLIC_DIR they share as a shared volume would, and REDIS_URL naming a
 * redis-server in a third namespace; the shipped nginx site in the root namespace in front, its
 * upstreams at the instances' addresses (./netns-helpers.ts wires the namespaces to a bridge).
 * nginx says which instance answered in an `X-Upstream-Addr` header.
 *
 * Shown: POSTER_RATE_LIMIT and POSTER_MAX_BYTES hold whichever instance answers, sequentially
 * and when requests race on both; with Redis gone, poster requests are a 503 with Retry-After
 * while `GET /` and a 404 answer at once, `/readyz` names `redis` and the error log says so at
 * most once a second; Redis back, empty, the instances recover by themselves and rebuild the
 * store's count from the poster files; every poster on the shared volume is whole.
 * Needs root, iproute2, nginx, redis-server and openssl; fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { POSTERS_DIR } from '../../src/poster/api.js';
import type { PosterSpecInput } from '../../src/index.js';
import { posterFileName, renderPoster } from '../../src/poster/library.js';
import { RATE_WINDOW_MS } from '../../src/poster/limits/rate.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';
import { createLab, inNamespace, startRedisIn, type LabHost, type LabRedis } from './netns-helpers.js';
import { freePort, mainConfig, renderSite, startNginx, stopNginxAndInstances, writeThrowAwayCertificate, type RunningNginx } from './nginx-helpers.js';

const PASS = 'several machines passphrase';
const REDIS_PASSWORD = 'several machines r3dis';
const REDIS_PORT = 6379;
const SERVICE_PORT = 8000;
const ADMIN_PORT = 9000;
const RATE_LIMIT = 3;
/** Requests of one subject that race through nginx, well past RATE_LIMIT. */
const RATE_RACERS = 12;
const SPEC_A = { title: 'The first poster on the shared volume', quality: 30 };
/** Distinct posters that race for the room left; a few fit. */
const RACE_SPECS = Array.from({ length: 8 }, (_, i) => ({ title: `Racing poster number ${i}`, quality: 30 }));

/** One answer, its body as bytes, and how long it took. */
interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly bytes: Buffer;
  readonly ms: number;
}

/** One request on a fresh connection; an https base URL is nginx's, trusted through `ca` alone. */
function request(baseUrl: string, method: string, target: string, headers: Record<string, string> = {}, body?: string, ca?: string): Promise<Answer> {
  const url = new URL(baseUrl);
  const client = url.protocol === 'https:' ? https : http;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = client.request({ host: url.hostname, port: url.port, method, path: target, headers, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks), ms: Date.now() - started }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer in 30 s to ${method} ${target}`)));
    req.on('error', reject);
    req.end(body);
  });
}

const json = (res: Answer) => JSON.parse(res.bytes.toString('utf8')) as Record<string, unknown>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits, if needed, for a rate window with at least 15 s left, so a test's requests share one. */
async function freshWindowIfNeeded(): Promise<number> {
  const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
  if (left < 15_000) await sleep(left + 100);
  return Math.floor(Date.now() / RATE_WINDOW_MS);
}

const root = mkdtempSync(join(tmpdir(), 'several-machines-'));
// nginx workers drop root privileges (to nobody) and still need to reach their temp paths.
chmodSync(root, 0o755);
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
/** The shared volume: PUBLIC_DIR of both instances. */
const publicDir = join(root, 'shared-public');
const postersDir = join(publicDir, POSTERS_DIR);
const redisDir = join(root, 'redis');
mkdirSync(redisDir);
// Two machines for the instances, a third for Redis.
const lab = createLab('smx', 3);
// Registered first, so it runs after the suite's own clean-up has stopped every program.
after(async () => {
  try {
    await lab.remove();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// The renderer is deterministic: the bytes an instance writes for a spec are known here.
const rendered = new Map<string, Buffer>();
for (const spec of [SPEC_A, ...RACE_SPECS]) rendered.set(posterFileName(spec), Buffer.from(await renderPoster(spec)));
const sizeOf = (spec: PosterSpecInput) => rendered.get(posterFileName(spec))!.length;
const raceSizes = RACE_SPECS.map(sizeOf);
// Room for A, two racing posters and half of another: a few of the racers fit, most do not.
const POSTER_MAX_BYTES = sizeOf(SPEC_A) + raceSizes[0]! + raceSizes[1]! + Math.floor(Math.min(...raceSizes) / 2);

/** A token for its own subject: the rate limit counts per subject. */
async function bearer(subject: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await issueToken(privateKey, subject, 600, Date.now())}`, 'content-type': 'application/json' };
}

/** The posters on the shared volume (not the dot files), by name, with their sizes. */
function storedPosters(): Map<string, number> {
  let names: string[] = [];
  try {
    names = readdirSync(postersDir).filter((name) => !name.startsWith('.'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return new Map(names.map((name) => [name, readFileSync(join(postersDir, name)).length]));
}
const storedBytes = () => [...storedPosters().values()].reduce((a, b) => a + b, 0);

/** Every line of an instance's day files (`test-YYYY-MM-DD.log`). */
function logLines(logDir: string): string[] {
  let files: string[] = [];
  try {
    files = readdirSync(logDir).filter((name) => /^test-\d{4}-\d{2}-\d{2}\.log$/.test(name)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return files.flatMap((name) => readFileSync(join(logDir, name), 'utf8').split('\n').slice(0, -1));
}

describe('two instances on two machines (network namespaces) sharing limits on Redis, behind nginx', () => {
  let nginx: RunningNginx | undefined;
  let redis: LabRedis | undefined;
  let instances: ServerProgram[] = [];
  // Registered before the programs start: stops them all before the lab is removed.
  after(async () => {
    try {
      await stopNginxAndInstances(nginx, instances);
    } finally {
      await redis?.stop('SIGTERM');
    }
  });

  let machines: LabHost[] = [];
  let redisHost: LabHost | undefined;
  let nginxUrl = '';
  let certificate = '';
  /** `address:port` of each instance, as nginx's `$upstream_addr` names it. */
  let upstreams: string[] = [];
  /** Names of the posters some answer said were made (201). */
  const made = new Set<string>();

  before(async () => {
    const plan = await lab.create();
    machines = plan.hosts.slice(0, 2);
    redisHost = plan.hosts[2];
    redis = await startRedisIn(redisHost!, REDIS_PORT, REDIS_PASSWORD, redisDir);
    const [nginxPort, tlsPort] = [await freePort(), await freePort()];
    nginxUrl = `https://127.0.0.1:${tlsPort}`;
    const env = (machine: LabHost) => ({
      POSTER_API: '1',
      HOST: machine.address,
      PORT: String(SERVICE_PORT),
      ADMIN_HOST: machine.address,
      ADMIN_PORT: String(ADMIN_PORT),
      PUBLIC_DIR: publicDir,
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
      // nginx connects from the root namespace's address on the bridge.
      TRUSTED_PROXIES: plan.gateway,
      BASE_URL: nginxUrl,
      POSTER_MAX_BYTES: String(POSTER_MAX_BYTES),
      POSTER_RATE_LIMIT: String(RATE_LIMIT),
      REDIS_URL: redis!.url(3),
    });
    // Each VAR_DIR is the program's own temp directory (runServerProgram's), as on two machines.
    instances = machines.map((machine) => runServerProgram(env(machine), [], undefined, inNamespace(machine)));
    const urls = await Promise.all(instances.map((i) => i.listening));
    upstreams = machines.map((m) => `${m.address}:${SERVICE_PORT}`);
    assert.deepEqual(urls.map((u) => new URL(u).host), upstreams, 'each instance listens on its machine\'s address');
    await writeThrowAwayCertificate(root);
    certificate = readFileSync(join(root, 'cert.pem'), 'utf8');
    writeFileSync(join(root, 'problem-service.conf'), renderSite({
      UPSTREAMS: upstreams.map((u) => `server ${u};`).join('\n    '),
      HTTP_LISTEN: `127.0.0.1:${nginxPort}`,
      HTTPS_LISTEN: `127.0.0.1:${tlsPort}`,
      SERVER_NAME: '127.0.0.1 localhost',
      TLS_CERTIFICATE: join(root, 'cert.pem'),
      TLS_CERTIFICATE_KEY: join(root, 'key.pem'),
    }));
    writeFileSync(join(root, 'nginx.conf'), mainConfig(root, ['add_header X-Upstream-Addr $upstream_addr always;'], plan.gateway));
    nginx = await startNginx(root, [nginxPort, tlsPort]);
  });

  /** A request through nginx, with the instance (0 or 1) that answered it. */
  async function viaNginx(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Answer & { instance: number }> {
    const res = await request(nginxUrl, method, target, headers, body, certificate);
    const upstream = String(res.headers['x-upstream-addr']);
    const instance = upstreams.indexOf(upstream);
    assert.notEqual(instance, -1, `${method} ${target}: answered by ${upstream}, not one instance (${upstreams.join(', ')})`);
    return { ...res, instance };
  }

  const postPoster = async (spec: PosterSpecInput, subject: string) => {
    const res = await viaNginx('POST', '/api/posters', await bearer(subject), JSON.stringify(spec));
    if (res.status === 201) made.add(posterFileName(spec));
    return res;
  };
  /** Each instance's `/readyz` on its admin listener, straight to its machine. */
  const readyz = () => Promise.all(machines.map(async (m) => request(`http://${m.address}:${ADMIN_PORT}`, 'GET', '/readyz')));
  const bothOf = (answers: readonly { instance: number }[]) => [...new Set(answers.map((a) => a.instance))].sort();

  it(`holds POSTER_RATE_LIMIT=${RATE_LIMIT} across machines: the 4th request of the minute is a 429 with Retry-After on both`, async (t) => {
    const window = await freshWindowIfNeeded();
    const headers = await bearer('rate');
    const answers: { status: number; instance: number; retryAfter: string | undefined }[] = [];
    for (let i = 0; i < RATE_LIMIT + 3; i++) {
      // An invalid spec (422) counts like any request past the token check, and renders nothing.
      const res = await viaNginx('POST', '/api/posters', headers, '{}');
      answers.push({ status: res.status, instance: res.instance, retryAfter: res.headers['retry-after'] });
    }
    assert.equal(Math.floor(Date.now() / RATE_WINDOW_MS), window, 'the minute changed during the test');
    assert.deepEqual(answers.map((a) => a.status), [422, 422, 422, 429, 429, 429], JSON.stringify(answers));
    assert.deepEqual(bothOf(answers.slice(0, RATE_LIMIT)), [0, 1], 'both instances admitted some');
    assert.deepEqual(bothOf(answers.slice(RATE_LIMIT)), [0, 1], 'both instances refused some');
    for (const a of answers.slice(RATE_LIMIT)) {
      const seconds = Number(a.retryAfter);
      assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After: ${a.retryAfter}`);
    }
    t.diagnostic(`answered by instances ${answers.map((a) => `${a.instance}:${a.status}`).join(', ')}`);
  });

  it(`admits exactly POSTER_RATE_LIMIT=${RATE_LIMIT} of ${RATE_RACERS} concurrent requests of one subject spread over both machines`, async (t) => {
    const window = await freshWindowIfNeeded();
    const headers = await bearer('rate-race');
    const answers = await Promise.all(Array.from({ length: RATE_RACERS }, () => viaNginx('POST', '/api/posters', headers, '{}')));
    assert.equal(Math.floor(Date.now() / RATE_WINDOW_MS), window, 'the minute changed during the test');
    const admitted = answers.filter((a) => a.status === 422);
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(admitted.length + refused.length, RATE_RACERS, `statuses: ${answers.map((a) => a.status).join(' ')}`);
    assert.equal(admitted.length, RATE_LIMIT, `admitted by instances ${admitted.map((a) => a.instance).join(' ')}`);
    assert.deepEqual(bothOf(answers), [0, 1], 'both instances answered');
    t.diagnostic(`admitted ${admitted.length} of ${RATE_RACERS} (by ${admitted.map((a) => a.instance).join(', ')}); both instances answered`);
  });

  it('holds POSTER_MAX_BYTES across machines when distinct posters race on both: never more bytes than the limit, then a 507 on both', async (t) => {
    const first = await postPoster(SPEC_A, 'store-a');
    assert.equal(first.status, 201, first.bytes.toString());
    const racers = await Promise.all(RACE_SPECS.map((spec, i) => postPoster(spec, `store-race-${i}`)));
    const statuses = racers.map((r) => r.status);
    assert.ok(statuses.every((s) => s === 201 || s === 507), `statuses: ${statuses.join(' ')}`);
    const written = storedBytes();
    assert.ok(written <= POSTER_MAX_BYTES, `${written} bytes written, over POSTER_MAX_BYTES ${POSTER_MAX_BYTES}`);
    const won = statuses.filter((s) => s === 201).length;
    assert.ok(won >= 1 && won < RACE_SPECS.length, `${won} of ${RACE_SPECS.length} racers written`);
    assert.deepEqual(bothOf(racers), [0, 1], 'both instances answered racers');
    // A loser was refused with at least the room left now: it is refused again, by both.
    const loser = RACE_SPECS[statuses.indexOf(507)]!;
    const refusedBy: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await postPoster(loser, `store-again-${i}`);
      assert.equal(res.status, 507, `new poster ${i} (instance ${res.instance}): ${res.bytes.toString()}`);
      assert.equal(json(res).limit, POSTER_MAX_BYTES);
      refusedBy.push(res.instance);
    }
    assert.deepEqual(bothOf(refusedBy.map((instance) => ({ instance }))), [0, 1], 'both instances refused it');
    const existing = await postPoster(SPEC_A, 'store-existing');
    assert.equal(existing.status, 201, 'an existing poster is still a 201');
    t.diagnostic(`limit ${POSTER_MAX_BYTES} bytes; ${won} of ${RACE_SPECS.length} racers written; ${written} bytes on the volume`);
  });

  it('answers poster requests 503 with Retry-After while Redis is down; GET / and a 404 at once; /readyz names redis', async (t) => {
    await redis!.stop('SIGKILL');
    const outageStarted = Date.now();
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await postPoster(SPEC_A, `outage-${i}`));
    for (const [i, res] of answers.entries()) {
      assert.equal(res.status, 503, `poster request ${i} (instance ${res.instance}): ${res.bytes.toString()}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const seconds = Number(res.headers['retry-after']);
      assert.ok(Number.isInteger(seconds) && seconds >= 1, `Retry-After: ${res.headers['retry-after']}`);
      assert.equal(json(res).status, 503);
    }
    assert.deepEqual(bothOf(answers), [0, 1], 'both instances answered 503');
    // Neither waits on Redis: bounded well below any reconnection or command timeout.
    for (const target of ['/', '/several-machines/missing', '/', '/several-machines/missing']) {
      const res = await viaNginx('GET', target, { accept: 'application/json' });
      assert.equal(res.status, target === '/' ? 200 : 404, `GET ${target}`);
      assert.ok(res.ms < 2_000, `GET ${target} took ${res.ms} ms with Redis down`);
    }
    for (const [i, res] of (await readyz()).entries()) {
      assert.equal(res.status, 503, `instance ${i} /readyz: ${res.bytes.toString()}`);
      const checks = json(res).checks as Record<string, string>;
      assert.ok(checks.redis !== undefined && checks.redis !== 'ok', `instance ${i} /readyz checks: ${JSON.stringify(checks)}`);
    }
    // More poster requests over two seconds: the CRITICAL line still comes at most once a second.
    for (let i = 0; i < 8; i++) {
      await postPoster(SPEC_A, `outage-more-${i}`);
      await sleep(250);
    }
    await sleep(300); // lines reach the file within 20 ms of being logged
    for (const [i, instance] of instances.entries()) {
      const critical = logLines(join(instance.varDir, 'log')).filter((line) => / [a-z][a-z0-9_]*\.CRITICAL: .*redis/i.test(line));
      assert.ok(critical.length >= 1, `instance ${i}: no CRITICAL line about Redis`);
      const stamps = critical.map((line) => line.slice(0, 19));
      assert.equal(new Set(stamps).size, stamps.length, `instance ${i}: more than one CRITICAL line in a second:\n${critical.join('\n')}`);
      assert.ok(critical.length <= Math.ceil((Date.now() - outageStarted) / 1000) + 1, `instance ${i}: ${critical.length} CRITICAL lines`);
    }
    t.diagnostic(`503s from instances ${answers.map((a) => a.instance).join(', ')}`);
  });

  it('recovers by itself once Redis is back, empty: the count rebuilt from the files, a poster past the limit is a 507', async (t) => {
    const before = storedPosters();
    redis = await startRedisIn(redisHost!, REDIS_PORT, REDIS_PASSWORD, redisDir);
    const restarted = Date.now();
    // A racer that lost does not fit beside the files already there; an empty count would take it.
    const loser = RACE_SPECS.find((spec) => !before.has(posterFileName(spec)))!;
    assert.ok(storedBytes() + sizeOf(loser) > POSTER_MAX_BYTES);
    let res = await postPoster(loser, 'recovery-0');
    for (let i = 1; res.status === 503 && Date.now() - restarted < 20_000; i++) {
      await sleep(250);
      res = await postPoster(loser, `recovery-${i}`);
    }
    const recoveredMs = Date.now() - restarted;
    assert.equal(res.status, 507, `after the restart: ${res.bytes.toString()}`);
    assert.equal(json(res).limit, POSTER_MAX_BYTES);
    const answeredBy = [res.instance];
    for (let i = 0; i < 4; i++) {
      let again = await postPoster(loser, `recovered-${i}`);
      // The other instance may take a moment longer to reconnect (backoff up to 2 s).
      for (let j = 0; again.status === 503 && Date.now() - restarted < 20_000; j++) {
        await sleep(250);
        again = await postPoster(loser, `recovered-${i}-${j}`);
      }
      assert.equal(again.status, 507, `instance ${again.instance} after the restart: ${again.bytes.toString()}`);
      answeredBy.push(again.instance);
    }
    assert.deepEqual(bothOf(answeredBy.map((instance) => ({ instance }))), [0, 1], 'both instances refused it');
    assert.deepEqual(storedPosters(), before, 'no file was added or removed');
    let ready = await readyz();
    while (ready.some((r) => r.status !== 200) && Date.now() - restarted < 20_000) {
      await sleep(250);
      ready = await readyz();
    }
    for (const [i, r] of ready.entries()) assert.equal(r.status, 200, `instance ${i} /readyz: ${r.bytes.toString()}`);
    const existing = await postPoster(SPEC_A, 'recovered-existing');
    assert.equal(existing.status, 201, existing.bytes.toString());
    t.diagnostic(`poster requests answered again ${recoveredMs} ms after Redis restarted`);
  });

  it('loses no poster and tears none: every file on the shared volume is the rendering of its spec', () => {
    const stored = storedPosters();
    assert.deepEqual([...stored.keys()].sort(), [...made].sort(), 'the files are the posters answered 201');
    for (const name of stored.keys()) {
      const expected = rendered.get(name);
      assert.ok(expected, `${name}: not a poster of this test`);
      assert.ok(readFileSync(join(postersDir, name)).equals(expected), `${name}: other bytes than its rendering`);
    }
    assert.ok(storedBytes() <= POSTER_MAX_BYTES);
  });
});

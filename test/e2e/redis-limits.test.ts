/**
 * The poster limits in Redis (REDIS_URL) against a real redis-server: two services in this
 * process share one Redis and one PUBLIC_DIR, as two machines would share them (the netns test,
 * several-machines.test.ts, runs them as machines). Shown: exactly POSTER_RATE_LIMIT requests of
 * a subject pass a race over both, POSTER_MAX_BYTES is never passed by a race, the count is
 * rebuilt from the files when Redis loses it, and while Redis is away poster requests are 503 with
 * Retry-After (a CRITICAL line a second at most, readiness naming redis) and everything else
 * answers; all of it recovers by itself. Fails, never skips, without redis-server.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { POSTERS_DIR } from '../../src/poster/api.js';
import { renderPoster } from '../../src/poster/library.js';
import { createRedisClient, parseRedisUrl, type RedisClient } from '../../src/redis/index.js';
import { send } from '../helpers/http.js';
import { sample } from '../helpers/metrics-page.js';
import { REDIS_PASSWORD, startRedis, stopRedis, type RunningRedis } from '../helpers/redis-server.js';
import { reach } from '../helpers/redis-state.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { freePort } from './nginx-helpers.js';

const PASS = 'redis limits passphrase';
const RATE_LIMIT = 4;
const root = mkdtempSync(join(tmpdir(), 'redis-limits-'));
after(() => rmSync(root, { recursive: true, force: true }));
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
const publicDir = join(root, 'public');
const postersDir = join(publicDir, POSTERS_DIR);
const redisDir = join(root, 'redis');
mkdirSync(redisDir);

/** Six distinct posters, rendered here to know their sizes; the store holds the three smallest at most. */
const SPECS = Array.from({ length: 6 }, (_, i) => ({ title: `Poster number ${i + 1} of the race`, quality: 30 }));
const SIZES = await Promise.all(SPECS.map(async (spec) => (await renderPoster(spec)).byteLength));
const MAX_BYTES = [...SIZES].sort((a, b) => a - b).slice(0, 3).reduce((a, b) => a + b, 0);

/** The bytes of the posters on the shared volume. */
function filesBytes(): number {
  let total = 0;
  for (const name of readdirSync(postersDir)) if (!name.startsWith('.')) total += statSync(join(postersDir, name)).size;
  return total;
}

const port = await freePort();
let redis: RunningRedis | undefined = await startRedis(port, redisDir);
after(async () => {
  if (redis) await stopRedis(redis, 'SIGTERM');
});
const redisUrl = `redis://:${encodeURIComponent(REDIS_PASSWORD)}@127.0.0.1:${port}/3`;
/** The test's own look into Redis. */
const probe: RedisClient = createRedisClient(parseRedisUrl(redisUrl));
after(() => probe.close());
/** Two services ("machines"): their own VAR_DIR, one PUBLIC_DIR, one Redis. */
const services: TestService[] = [];
for (const name of ['one', 'two']) {
  services.push(await startTestService({
    POSTER_API: '1',
    POSTER_RATE_LIMIT: String(RATE_LIMIT),
    POSTER_MAX_BYTES: String(MAX_BYTES),
    REDIS_URL: redisUrl,
    PUBLIC_DIR: publicDir,
    VAR_DIR: join(root, name),
    ADMIN_PORT: '0',
    JWT_SECRET_KEY: keyPaths.secretKeyPath,
    JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
    JWT_PASSPHRASE: PASS,
  }, { renderPool: { size: 1 } }));
}

describe('poster limits in Redis, shared by two services', () => {
  const post = async (service: TestService, subject: string, spec: object) => send(service.url, 'POST', '/api/posters', {
    authorization: `Bearer ${await issueToken(privateKey, subject, 600, Date.now())}`,
    'content-type': 'application/json',
  }, JSON.stringify(spec));

  it('admits exactly POSTER_RATE_LIMIT requests of a subject racing over both services', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(services[i % 2]!, 'racer', SPECS[0]!)));
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s !== 429).length, RATE_LIMIT, statuses.join(' '));
    for (const answer of answers.filter((a) => a.status === 429)) {
      const retryAfter = Number(answer.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${answer.headers['retry-after']}`);
      assert.match(JSON.parse(answer.body).type, /\/1\.0\/rate-limited$/);
    }
    assert.equal(statuses.filter((s) => s === 201).length, RATE_LIMIT, 'the admitted requests made (or found) their poster');
    // The window's key: one per subject and window, with an expiry.
    const keys = (await probe.command(['KEYS', 'poster-rate:*'])) as Buffer[];
    assert.equal(keys.length, 1, keys.join(' '));
    assert.equal(Number(await probe.get(keys[0]!)), 12);
    assert.ok(((await probe.command(['PTTL', keys[0]!])) as number) > 0);
  });

  it('never lets a race of distinct posters over both services pass POSTER_MAX_BYTES', async () => {
    const answers = await Promise.all(SPECS.map((spec, i) => post(services[i % 2]!, `writer-${i}`, spec)));
    const statuses = answers.map((a) => a.status);
    assert.ok(statuses.every((s) => s === 201 || s === 507), statuses.join(' '));
    const files = readdirSync(postersDir).filter((name) => !name.startsWith('.'));
    assert.ok(filesBytes() <= MAX_BYTES, `${filesBytes()} bytes on disk, limit ${MAX_BYTES}`);
    for (const answer of answers.filter((a) => a.status === 201)) {
      assert.ok(files.includes(String(JSON.parse(answer.body).url).split('/').pop()!), `${answer.body}: no such file`);
    }
    assert.ok(statuses.includes(507), 'six posters do not fit where three do');
    assert.equal(Number(await probe.get('poster-store:bytes')), filesBytes(), 'Redis counts what the files hold');
    const full = answers.find((a) => a.status === 507)!;
    assert.match(JSON.parse(full.body).type, /\/1\.0\/storage-full$/);
  });

  it('rebuilds the count from the files when Redis has lost it, before admitting a poster', async () => {
    const held = filesBytes();
    await probe.command(['FLUSHDB']);
    const answer = await post(services[0]!, 'after-flush', { title: 'Would fit only in an empty store', quality: 30 });
    // Whatever fits the room left by the files is 201, anything else 507: the count is the files'.
    const size = (await renderPoster({ title: 'Would fit only in an empty store', quality: 30 })).byteLength;
    assert.equal(answer.status, held + size <= MAX_BYTES ? 201 : 507, answer.body);
    assert.equal(Number(await probe.get('poster-store:bytes')), filesBytes());
    assert.equal((await probe.get('poster-store:counted'))?.toString(), '1');
  });

  it('answers 503 with Retry-After while Redis is away, serves everything else, and recovers by itself', async () => {
    const [one] = services;
    await stopRedis(redis!, 'SIGKILL');
    redis = undefined;
    await reach(probe, 'disconnected');
    one!.log.clear();
    const startedAt = Date.now();
    const refused = await Promise.all(Array.from({ length: 20 }, (_, i) => post(one!, `outage-${i}`, SPECS[0]!)));
    for (const answer of refused) {
      assert.equal(answer.status, 503, answer.body);
      assert.equal(answer.headers['retry-after'], '2');
      assert.match(JSON.parse(answer.body).type, /\/1\.0\/limits-unavailable$/);
    }
    assert.equal((await send(one!.url, 'GET', '/')).status, 200, 'GET / does not wait on Redis');
    assert.equal((await send(one!.url, 'GET', '/no/such/page')).status, 404);
    const critical = one!.log.lines.filter((l) => l.level === 'CRITICAL');
    const seconds = Math.ceil((Date.now() - startedAt) / 1000);
    assert.ok(critical.length >= 1 && critical.length <= seconds + 1, `${critical.length} CRITICAL lines in ${seconds} s`);
    assert.match(critical[0]!.message, /^Poster limits unavailable: RedisUnavailable: .*answered 503 until Redis at redis:\/\/127\.0\.0\.1:\d+\/3 answers$/);
    assert.ok(!critical[0]!.message.includes(REDIS_PASSWORD), 'never the password');
    assert.equal(one!.log.lines.filter((l) => l.channel === 'request' && l.level === 'WARNING').length, 20, 'each answer a WARNING');
    const page = (await send(one!.adminUrl!, 'GET', '/metrics')).body;
    assert.equal(sample(page, 'poster_limits_unavailable_total'), 20);
    assert.equal(sample(page, 'http_requests_total{method="POST",status="503"}'), 20);
    const ready = await send(one!.adminUrl!, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.match(JSON.parse(ready.body).checks.redis, /unavailable/);

    redis = await startRedis(port, redisDir);
    await reach(probe, 'ready');
    // A poster not made yet: admitting it needs the count, which the new Redis rebuilds from the files.
    const spec = { title: 'Made once Redis is back', quality: 30 };
    const fits = filesBytes() + (await renderPoster(spec)).byteLength <= MAX_BYTES;
    let answer = await post(one!, 'back', spec);
    for (let i = 0; answer.status === 503 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await post(one!, 'back', spec);
    }
    assert.equal(answer.status, fits ? 201 : 507, answer.body);
    assert.equal((await send(one!.adminUrl!, 'GET', '/readyz')).status, 200);
    assert.ok(one!.log.lines.some((l) => l.level === 'NOTICE' && /answers again/.test(l.message)), 'a NOTICE once Redis is back');
    // A new Redis: the count was rebuilt from the files.
    assert.equal(Number(await probe.get('poster-store:bytes')), filesBytes());
  });
});

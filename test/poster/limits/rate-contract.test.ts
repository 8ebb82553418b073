/**
 * The POSTER_RATE_LIMIT contract (rate-contract.ts) run against both limiters: the files on a
 * shared volume, and Redis, here a fake one that runs the limiter's script transcribed (the e2e
 * tier runs the real Lua against a real redis-server).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LimitsUnavailable } from '../../../src/poster/limits/limits.js';
import { PosterRateLimiter } from '../../../src/poster/limits/rate.js';
import { createOutageGuard } from '../../../src/poster/limits/redis-outage.js';
import { RedisRateLimiter } from '../../../src/poster/limits/redis-rate.js';
import { createRedisClient, parseRedisUrl } from '../../../src/redis/index.js';
import { answerScripts, FakeKeyspace, FakeRedis, respIntegers, type FakeScript } from '../../redis/fake-redis.js';
import { rateLimiterContract, T0, type OpenRateStore } from './rate-contract.js';

const root = mkdtempSync(join(tmpdir(), 'rate-contract-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

/** Files: a fresh directory per store; each limiter on it is another process sharing VAR_DIR. */
const openFiles: OpenRateStore = async (_t, clock) => {
  const dir = join(root, `store-${++dirs}`);
  return { limiter: (limit) => new PosterRateLimiter({ dir, limit, clock }) };
};

/**
 * The limiter's script (TAKE in src/poster/limits/redis-rate.ts), word for word: the fake runs
 * the transcription below only for this text, so a change to the Lua fails here until both are
 * brought along.
 */
const TAKE_SOURCE = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
local index = math.floor(now / window)
local key = KEYS[1] .. ':' .. index
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, window * 2) end
return {count, (index + 1) * window - now}
`;

const take: FakeScript = (redis, [prefix], [windowArg]) => {
  const [seconds, microseconds] = redis.time();
  const now = seconds * 1000 + Math.floor(microseconds / 1000);
  const window = Number(windowArg);
  const index = Math.floor(now / window);
  const key = `${prefix}:${index}`;
  const count = redis.incr(key);
  if (count === 1) redis.pexpire(key, window * 2);
  return respIntegers(count, (index + 1) * window - now);
};

/** A fake Redis whose TIME is the clock; each limiter on it is another instance with its own client. */
async function openFakeRedis(t: Parameters<OpenRateStore>[0], clock: () => number) {
  const keyspace = new FakeKeyspace(clock);
  const fake = await new FakeRedis(answerScripts(keyspace, new Map([[TAKE_SOURCE, take]]))).start();
  t.after(() => fake.stop());
  const limiter = (limit: number) => {
    const client = createRedisClient(parseRedisUrl(`redis://127.0.0.1:${fake.port}`));
    t.after(() => client.close());
    const guard = createOutageGuard({ endpoint: client.endpoint, onStateChange: (l) => client.onStateChange(l), log: () => {}, clock });
    t.after(() => guard.stop());
    return new RedisRateLimiter({ client, guard, limit });
  };
  return { fake, limiter };
}

rateLimiterContract('PosterRateLimiter (files)', openFiles);
rateLimiterContract('RedisRateLimiter (a fake Redis)', openFakeRedis);

describe('RedisRateLimiter, what the files have no counterpart of', () => {
  it('sends the script the fake Redis runs: EVALSHA, then EVAL with its text once, then EVALSHA alone', async (t) => {
    const { fake, limiter } = await openFakeRedis(t, () => T0);
    const rate = limiter(5);
    await rate.take('ana');
    await rate.take('ana');
    const scripts = fake.commands.filter(([name]) => name === 'EVALSHA' || name === 'EVAL');
    assert.deepEqual(scripts.map(([name]) => name), ['EVALSHA', 'EVAL', 'EVALSHA']);
    assert.equal(scripts[1]![1], TAKE_SOURCE, 'the Lua changed: transcribe it again in `take` above');
  });

  it('refuses with 503 (LimitsUnavailable), never admits, while Redis is away', async (t) => {
    const { fake, limiter } = await openFakeRedis(t, () => T0);
    const rate = limiter(5);
    await rate.take('ana');
    await fake.stop();
    await assert.rejects(rate.take('ana'), LimitsUnavailable);
  });
});

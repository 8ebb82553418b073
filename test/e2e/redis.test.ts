/**
 * The Redis client against a real `redis-server` (Debian's package), started by the test on a
 * free loopback port with a password, no persistence and no unix socket: AUTH, SELECT, ten
 * thousand pipelined INCRs, EVALSHA falling back to EVAL, and an outage (SIGKILL, then a restart
 * on the same port) that commands see as a prompt RedisUnavailable and the client recovers from
 * by itself; and rediss:// against redis-server's TLS port, with a certificate openssl makes.
 * Fails, never skips, without redis-server or openssl.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createRedisClient,
  createScript,
  parseRedisUrl,
  RedisError,
  RedisUnavailable,
  type RedisClient,
  type RedisClientOptions,
} from '../../src/redis/index.js';
import { runProgram } from '../helpers/programs.js';
import { freePort } from './nginx-helpers.js';
import { reach } from '../helpers/redis-state.js';
import { REDIS_PASSWORD, startRedis, stopRedis, type RunningRedis } from '../helpers/redis-server.js';

const PASSWORD = REDIS_PASSWORD;

describe('RedisClient against redis-server', () => {
  let port = 0;
  let dir = '';
  let redis: RunningRedis | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redis-e2e-'));
    port = await freePort();
    redis = await startRedis(port, dir);
  });
  after(async () => {
    if (redis) await stopRedis(redis, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  function connect(db: number, options: RedisClientOptions = {}, password = PASSWORD): RedisClient {
    const client = createRedisClient(parseRedisUrl(`redis://:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`), options);
    after(() => client.close());
    return client;
  }

  it('logs in with AUTH, and refuses a wrong password with WRONGPASS', async () => {
    const client = connect(0);
    assert.equal(await client.command(['PING']), 'PONG');
    const wrong = connect(0, { backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } }, 'not it');
    await reach(wrong, 'disconnected');
    assert.ok(wrong.lastError instanceof RedisError);
    assert.equal(wrong.lastError.prefix, 'WRONGPASS');
    await assert.rejects(wrong.get('k'), RedisUnavailable);
  });

  it('sets, gets, deletes, and counts a window with its expiry', async () => {
    const client = connect(0);
    assert.equal(await client.set('greeting', 'h\u00e9llo', { expireMs: 60_000 }), true);
    assert.equal(await client.set('greeting', 'other', { onlyIfAbsent: true }), false);
    assert.equal((await client.get('greeting'))!.toString('utf8'), 'h\u00e9llo');
    assert.equal(await client.del('greeting', 'absent'), 1);
    assert.equal(await client.get('greeting'), null);

    const first = await client.incrWithExpiry('window:a', 30_000);
    const second = await client.incrWithExpiry('window:a', 30_000);
    assert.deepEqual([first.count, second.count], [1, 2]);
    assert.ok(first.ttlMs === 30_000 && second.ttlMs > 0 && second.ttlMs <= 30_000, JSON.stringify([first, second]));
    const ttl = await client.command(['PTTL', 'window:a']);
    assert.ok(typeof ttl === 'number' && ttl > 0 && ttl <= 30_000, String(ttl));
    // a key left without an expiry gets one on the next count
    await client.set('window:b', 5);
    assert.equal((await client.incrWithExpiry('window:b', 10_000)).count, 6);
    assert.ok(((await client.command(['PTTL', 'window:b'])) as number) > 0);
  });

  it('pipelines 10,000 INCRs and gets every reply in order', async () => {
    const client = connect(0);
    await client.del('pipelined');
    const replies = await Promise.all(Array.from({ length: 10_000 }, () => client.command(['INCR', 'pipelined'])));
    assert.deepEqual(replies, Array.from({ length: 10_000 }, (_, i) => i + 1));
  });

  it('runs a script with EVALSHA, sending its text with EVAL only after NOSCRIPT', async () => {
    const client = connect(0);
    const script = createScript("return redis.call('INCRBY', KEYS[1], ARGV[1])");
    await client.command(['SCRIPT', 'FLUSH']);
    await client.del('scripted');
    assert.equal(await client.evalScript(script, ['scripted'], [5]), 5);
    assert.deepEqual(await client.command(['SCRIPT', 'EXISTS', script.sha1]), [1]);
    await client.command(['CONFIG', 'RESETSTAT']);
    assert.equal(await client.evalScript(script, ['scripted'], [2]), 7);
    const stats = String(await client.command(['INFO', 'commandstats']));
    assert.match(stats, /cmdstat_evalsha:calls=1,/);
    assert.doesNotMatch(stats, /cmdstat_eval:/, 'the text is not sent again');
  });

  it('keeps each client in the database of its URL', async () => {
    const one = connect(1);
    const two = connect(2);
    await one.set('isolated', 'in one');
    await two.del('isolated');
    assert.equal(await two.get('isolated'), null);
    assert.equal(String(await one.get('isolated')), 'in one');
  });

  it('fails promptly while redis-server is killed, and works again once it is back', async () => {
    // a minute per command: a command that waited for Redis instead of failing would hang here
    const client = connect(3, { commandTimeoutMs: 60_000, backoff: { initialDelayMs: 20, maxDelayMs: 200 } });
    const script = createScript("return redis.call('INCR', KEYS[1])");
    assert.equal(await client.evalScript(script, ['survivor'], []), 1);

    await stopRedis(redis!, 'SIGKILL');
    await reach(client, 'disconnected');
    for (let i = 0; i < 3; i++) {
      const err = await client.incrWithExpiry('survivor', 1000).then(() => assert.fail('resolved'), (e: unknown) => e);
      assert.ok(err instanceof RedisUnavailable, String(err));
      assert.equal(err.reason, 'disconnected');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(!client.isReady());
    assert.match(client.lastError!.message, /closed by Redis|ECONNRESET|ECONNREFUSED/);

    redis = await startRedis(port, dir);
    await reach(client, 'ready');
    // a new server: nothing kept (no persistence), the script cache empty (EVALSHA falls back)
    assert.equal(await client.evalScript(script, ['survivor'], []), 1);
    assert.equal(await client.command(['CLIENT', 'INFO']).then((info) => /db=3/.test(String(info))), true, 'SELECTed again');
  });
});

describe('RedisClient over TLS (rediss://)', () => {
  it('verifies the server against the CA it is given, and refuses one it does not trust', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    const made = await runProgram('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
    ]);
    assert.equal(made.code, 0, made.stderr);
    const port = await freePort();
    const redis = await startRedis(0, dir, ['--tls-port', String(port), '--tls-cert-file', cert, '--tls-key-file', key, '--tls-auth-clients', 'no']);
    after(() => stopRedis(redis, 'SIGTERM'));
    const url = parseRedisUrl(`rediss://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/5`);

    const trusting = createRedisClient(url, { tls: { ca: readFileSync(cert) } });
    after(() => trusting.close());
    assert.equal(await trusting.set('over-tls', 'yes'), true);
    assert.equal(String(await trusting.get('over-tls')), 'yes');

    const doubting = createRedisClient(url, { backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    after(() => doubting.close());
    await reach(doubting, 'disconnected');
    assert.match(doubting.lastError!.message, /self[- ]signed certificate/);
  });
});

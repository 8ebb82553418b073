import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  createRedisClient,
  createScript,
  parseRedisUrl,
  RedisError,
  RedisProtocolError,
  RedisTimeout,
  RedisUnavailable,
  type RedisClient,
  type RedisClientOptions,
} from '../../src/redis/index.js';
import { answerOk, FakeRedis, type Responder } from './fake-redis.js';
import { reach } from '../helpers/redis-state.js';

async function startFake(respond?: Responder): Promise<FakeRedis> {
  const fake = await new FakeRedis(respond).start();
  after(() => fake.stop());
  return fake;
}

function clientOf(fake: FakeRedis, options: RedisClientOptions = {}, credentials = ''): RedisClient {
  const client = createRedisClient(parseRedisUrl(`redis://${credentials}127.0.0.1:${fake.port}`), options);
  after(() => client.close());
  return client;
}

/** Asserts `promise` rejects with a RedisUnavailable of `reason`; returns it. */
async function unavailable(promise: Promise<unknown>, reason: RedisUnavailable['reason']): Promise<RedisUnavailable> {
  const err = await promise.then(() => assert.fail('resolved'), (e: unknown) => e);
  assert.ok(err instanceof RedisUnavailable, `not a RedisUnavailable: ${String(err)}`);
  assert.equal(err.reason, reason, err.message);
  assert.equal(err.code, 'redis_unavailable');
  return err;
}

describe('RedisClient', () => {
  it('pipelines: writes every command at once and matches replies in order', async () => {
    // answers nothing until all three commands are in: a client that waited for each reply would hang
    const fake = await startFake((args, socket) => {
      if (args[0] === 'PING') return '+PONG\r\n';
      if (fake.commands.filter((c) => c[0] === 'ECHO').length === 3) {
        socket.write(fake.commands.filter((c) => c[0] === 'ECHO').map(answerOk).join(''));
      }
      return undefined;
    });
    const client = clientOf(fake, { commandTimeoutMs: 60_000 });
    await reach(client, 'ready');
    const replies = await Promise.all(['one', 'two', 'three'].map((word) => client.command(['ECHO', word])));
    assert.deepEqual(replies.map(String), ['one', 'two', 'three']);
  });

  it('sends AUTH, SELECT and PING first, and nothing else until they are answered', async () => {
    let seenAtAuthReply: string[][] = [];
    const fake = await startFake((args, socket) => {
      if (args[0] !== 'AUTH') return answerOk(args);
      setTimeout(() => {
        seenAtAuthReply = [...fake.commands];
        socket.write('+OK\r\n');
      }, 50);
      return undefined;
    });
    const client = createRedisClient(parseRedisUrl(`redis://app:pa%3Ass@127.0.0.1:${fake.port}/3`));
    after(() => client.close());
    // made while connecting: waits for the handshake
    assert.equal(String(await client.get('k')), 'v:k');
    assert.deepEqual(seenAtAuthReply, [['AUTH', 'app', 'pa:ss'], ['SELECT', '3'], ['PING']]);
    assert.deepEqual(fake.commands, [['AUTH', 'app', 'pa:ss'], ['SELECT', '3'], ['PING'], ['GET', 'k']]);
  });

  it('sends AUTH with the password alone for the default user, and no SELECT for db 0', async () => {
    const fake = await startFake();
    const client = clientOf(fake, {}, ':s3cret@');
    await client.command(['PING']);
    assert.deepEqual(fake.commands, [['AUTH', 's3cret'], ['PING'], ['PING']]);
  });

  it('fails the connection when AUTH is refused, and never shows the password', async () => {
    const fake = await startFake((args) => (args[0] === 'AUTH' ? '-WRONGPASS invalid username-password pair or user is disabled.\r\n' : answerOk(args)));
    const client = clientOf(fake, { backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } }, 'app:hunter2@');
    const changes: string[] = [];
    client.onStateChange((change) => changes.push(`${change.previous}->${change.state}: ${change.error?.message ?? ''}`));
    const err = await unavailable(client.command(['GET', 'k']), 'disconnected');
    assert.match(err.message, /unavailable: WRONGPASS/);
    assert.deepEqual(changes, ['connecting->disconnected: WRONGPASS invalid username-password pair or user is disabled.']);
    assert.ok(client.lastError instanceof RedisError);
    assert.equal(client.lastError.prefix, 'WRONGPASS');
    assert.equal(client.isReady(), false);
    for (const text of [err.message, String(err.cause), client.lastError.message, client.endpoint]) assert.ok(!text.includes('hunter2'), text);
    assert.deepEqual(fake.commands.map((c) => c[0]), ['AUTH', 'PING'], 'GET was never written');
  });

  it('rejects an unanswered command with RedisTimeout, drops the connection and connects again', async () => {
    // like Redis, a connection stuck on one command answers none after it
    const stuck = new Set<unknown>();
    const fake = await startFake((args, socket) => {
      if (args[0] === 'SLOW') stuck.add(socket);
      return stuck.has(socket) ? undefined : answerOk(args);
    });
    const client = clientOf(fake, { commandTimeoutMs: 100, backoff: { initialDelayMs: 10, maxDelayMs: 10 } });
    await reach(client, 'ready');
    const slow = client.command(['SLOW']);
    const behind = client.command(['ECHO', 'behind']);
    const err = await slow.then(() => assert.fail('resolved'), (e: unknown) => e);
    assert.ok(err instanceof RedisTimeout);
    assert.equal(err.code, 'redis_timeout');
    assert.match(err.message, /did not answer SLOW within 100 ms/);
    // the reply after a lost one cannot be trusted to be its own
    await unavailable(behind, 'connection_lost');
    await reach(client, 'ready');
    assert.equal(String(await client.command(['ECHO', 'again'])), 'again');
    assert.equal(fake.connections, 2);
  });

  it('times out a command made while connecting when the handshake does not end', async () => {
    const fake = await startFake((args) => (args[0] === 'PING' ? undefined : answerOk(args)));
    const client = clientOf(fake, { commandTimeoutMs: 50, connectTimeoutMs: 60_000 });
    await assert.rejects(client.command(['GET', 'k']), RedisTimeout);
    assert.equal(client.state, 'connecting');
  });

  it('gives up connecting after the connect timeout, and says so', async () => {
    const fake = await startFake((args) => (args[0] === 'PING' ? undefined : answerOk(args)));
    const client = clientOf(fake, { connectTimeoutMs: 50, commandTimeoutMs: 60_000, backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    const err = await unavailable(client.command(['GET', 'k']), 'disconnected');
    assert.match(err.message, /no connection to Redis at redis:\/\/127\.0\.0\.1:\d+\/0 within 50 ms/);
  });

  it('fails fast while Redis is away, and recovers by itself when it returns', async () => {
    const fake = await startFake();
    const client = clientOf(fake, { commandTimeoutMs: 60_000, backoff: { initialDelayMs: 5, maxDelayMs: 40 } });
    await reach(client, 'ready');
    const inFlight = client.command(['BLOCKED']);
    fake.respond = () => undefined;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fake.stop();
    await unavailable(inFlight, 'connection_lost');
    // a command timeout of a minute: a command that waited for Redis would fail this test by hanging
    for (let i = 0; i < 5; i++) {
      await unavailable(client.command(['GET', 'k']), 'disconnected');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(client.lastError!.message, /ECONNREFUSED|closed/);
    fake.respond = answerOk;
    await fake.start();
    await reach(client, 'ready');
    assert.equal(String(await client.get('back')), 'v:back');
  });

  it('tells listeners of every change, with the error that caused it', async () => {
    const fake = await startFake();
    const client = clientOf(fake, { backoff: { initialDelayMs: 5, maxDelayMs: 5 } });
    const seen: string[] = [];
    client.onStateChange((change) => seen.push(`${change.previous}->${change.state}${change.error ? ' (error)' : ''}`));
    await reach(client, 'ready');
    await fake.stop();
    await reach(client, 'disconnected');
    await fake.start();
    await reach(client, 'ready');
    await client.close();
    assert.equal(seen[0], 'connecting->ready');
    assert.equal(seen[1], 'ready->disconnected (error)');
    assert.equal(seen.at(-2), 'connecting->ready');
    assert.equal(seen.at(-1), 'ready->closed');
  });

  it('drops the connection on bytes that are not RESP, and connects again', async () => {
    const fake = await startFake((args) => (args[0] === 'BAD' ? '%2\r\n' : answerOk(args)));
    const client = clientOf(fake, { backoff: { initialDelayMs: 5, maxDelayMs: 5 } });
    const err = await unavailable(client.command(['BAD']), 'connection_lost');
    assert.ok(err.cause instanceof RedisProtocolError);
    await reach(client, 'ready');
    assert.equal(String(await client.command(['ECHO', 'fine'])), 'fine');
  });

  it('rejects with Redis\' own error, and goes on', async () => {
    const fake = await startFake((args) => (args[0] === 'NOPE' ? "-ERR unknown command 'NOPE'\r\n" : answerOk(args)));
    const client = clientOf(fake);
    await assert.rejects(client.command(['NOPE']), (err: unknown) => err instanceof RedisError && err.prefix === 'ERR' && err.code === 'redis_error');
    assert.equal(String(await client.command(['ECHO', 'next'])), 'next');
  });

  it('refuses more waiting commands than its bound', async () => {
    const fake = await startFake((args) => (args[0] === 'PING' ? '+PONG\r\n' : undefined));
    const client = clientOf(fake, { maxPendingCommands: 2, commandTimeoutMs: 60_000 });
    await reach(client, 'ready');
    const waiting = [client.command(['A']), client.command(['B'])];
    await unavailable(client.command(['C']), 'overloaded');
    await fake.stop();
    for (const command of waiting) await unavailable(command, 'connection_lost');
  });

  it('closes cleanly: answers what was written, refuses what comes after', async () => {
    const fake = await startFake((args, socket) => {
      if (args[0] === 'LATER') setTimeout(() => socket.write('+done\r\n'), 50);
      return args[0] === 'LATER' ? undefined : answerOk(args);
    });
    const client = clientOf(fake);
    await reach(client, 'ready');
    const later = client.command(['LATER']);
    const closed = client.close();
    await unavailable(client.command(['GET', 'k']), 'closed');
    assert.equal(await later, 'done');
    await closed;
    assert.equal(client.state, 'closed');
    assert.equal(client.close(), closed, 'idempotent');
  });

  it('closes at once while it cannot connect', async () => {
    const fake = await startFake();
    await fake.stop();
    const client = clientOf(fake, { backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    await reach(client, 'disconnected');
    await client.close();
    await unavailable(client.command(['PING']), 'closed');
  });

  it('falls back from EVALSHA to EVAL on NOSCRIPT, and types incrWithExpiry\'s reply', async () => {
    const script = createScript('return 1');
    const fake = await startFake((args) => {
      if (args[0] === 'EVALSHA') return '-NOSCRIPT No matching script. Please use EVAL.\r\n';
      if (args[0] === 'EVAL') return args[1]!.includes('INCR') ? '*2\r\n:1\r\n:5000\r\n' : ':1\r\n';
      return answerOk(args);
    });
    const client = clientOf(fake);
    assert.equal(await client.evalScript(script, ['k'], ['a']), 1);
    assert.deepEqual(fake.commands.slice(-2), [
      ['EVALSHA', 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db', '1', 'k', 'a'],
      ['EVAL', 'return 1', '1', 'k', 'a'],
    ]);
    assert.deepEqual(await client.incrWithExpiry('window', 5000), { count: 1, ttlMs: 5000 });
  });

  it('refuses a reply of the wrong type to a typed command', async () => {
    const fake = await startFake((args) => (args[0] === 'DEL' ? '+OK\r\n' : answerOk(args)));
    const client = clientOf(fake);
    await assert.rejects(client.del('k'), /unexpected reply to DEL: a simple string/);
    await assert.rejects(client.incrWithExpiry('k', 0), /windowMs must be a positive integer/);
  });
});

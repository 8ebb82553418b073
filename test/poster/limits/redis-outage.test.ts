/**
 * Redis away, as the poster API meets it: failures of the client become 503 problems, reported at
 * CRITICAL once a second at most, and a NOTICE when Redis answers again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LimitsUnavailable } from '../../../src/poster/limits/limits.js';
import { createOutageGuard } from '../../../src/poster/limits/redis-outage.js';
import { RedisError, RedisTimeout, RedisUnavailable, type RedisStateChange } from '../../../src/redis/index.js';

function guarded() {
  let now = 1_000_000;
  const lines: [string, string][] = [];
  let listener: ((change: RedisStateChange) => void) | undefined;
  const guard = createOutageGuard({
    endpoint: 'redis://10.0.0.9:6379/0',
    onStateChange: (l) => {
      listener = l;
      return () => (listener = undefined);
    },
    log: (level, line) => lines.push([level, line]),
    clock: () => now,
  });
  return {
    guard,
    lines,
    advance: (ms: number) => (now += ms),
    change: (state: RedisStateChange['state']) => listener?.({ state, previous: 'connecting', error: undefined }),
    listening: () => listener !== undefined,
  };
}

const away = () => Promise.reject(new RedisUnavailable('disconnected', 'Redis at redis://10.0.0.9:6379/0 is unavailable: connect ECONNREFUSED'));

describe('createOutageGuard', () => {
  it('passes results and errors that are not Redis failures through', async () => {
    const { guard, lines } = guarded();
    assert.equal(await guard.failClosed(async () => 7), 7);
    await assert.rejects(guard.failClosed(() => Promise.reject(new TypeError('a bug'))), TypeError);
    assert.equal(lines.length, 0);
  });

  it('turns every Redis failure into a 503 with Retry-After, reported as a WARNING per answer', async () => {
    const { guard } = guarded();
    for (const failure of [new RedisUnavailable('connection_lost', 'lost'), new RedisTimeout(1000, 'slow'), new RedisError('OOM command not allowed')]) {
      await assert.rejects(guard.failClosed(() => Promise.reject(failure)), (err: unknown) => {
        assert.ok(err instanceof LimitsUnavailable);
        assert.equal(err.status, 503);
        assert.deepEqual(err.headers, { 'retry-after': '2' });
        assert.equal(err.reportedElsewhere, true);
        return true;
      });
    }
  });

  it('writes one CRITICAL line a second at most, however many requests fail', async () => {
    const { guard, lines, advance } = guarded();
    for (let i = 0; i < 50; i++) {
      await assert.rejects(guard.failClosed(away), LimitsUnavailable);
      advance(50); // 50 requests over 2.5 s
    }
    assert.equal(lines.length, 3, lines.map((l) => l.join(' ')).join('\n'));
    assert.equal(guard.refusals, 50, 'every refusal counted');
    assert.deepEqual(lines[0], ['CRITICAL', 'Poster limits unavailable: RedisUnavailable: Redis at redis://10.0.0.9:6379/0 is unavailable: connect ECONNREFUSED; poster requests are answered 503 until Redis at redis://10.0.0.9:6379/0 answers']);
  });

  it('writes a NOTICE when Redis answers again after an outage, and reports the next outage at once', async () => {
    const { guard, lines, change, advance } = guarded();
    change('ready');
    assert.equal(lines.length, 0, 'no NOTICE without an outage');
    await assert.rejects(guard.failClosed(away), LimitsUnavailable);
    change('connecting');
    change('ready');
    advance(10);
    await assert.rejects(guard.failClosed(away), LimitsUnavailable);
    assert.deepEqual(lines.map(([level]) => level), ['CRITICAL', 'NOTICE', 'CRITICAL']);
    assert.equal(lines[1]![1], 'Redis at redis://10.0.0.9:6379/0 answers again: the poster limits are checked again');
  });

  it('stops listening to the client when stopped', () => {
    const { guard, listening } = guarded();
    assert.equal(listening(), true);
    guard.stop();
    assert.equal(listening(), false);
  });
});

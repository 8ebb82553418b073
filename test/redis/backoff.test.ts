import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_BACKOFF, reconnectDelay } from '../../src/redis/index.js';

describe('reconnectDelay', () => {
  it('doubles from 50 ms and stays at 2 s by default', () => {
    const schedule = Array.from({ length: 8 }, (_, attempt) => reconnectDelay(attempt));
    assert.deepEqual(schedule, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
    assert.deepEqual(DEFAULT_BACKOFF, { initialDelayMs: 50, maxDelayMs: 2000 });
  });

  it('stays at the cap after a long outage, never Infinity', () => {
    assert.equal(reconnectDelay(10_000), 2000);
    assert.equal(reconnectDelay(Number.MAX_SAFE_INTEGER, { initialDelayMs: 1, maxDelayMs: Number.MAX_VALUE }), 2 ** 31);
  });

  it('follows a policy of its own', () => {
    assert.deepEqual([0, 1, 2, 3].map((n) => reconnectDelay(n, { initialDelayMs: 10, maxDelayMs: 35 })), [10, 20, 35, 35]);
  });
});

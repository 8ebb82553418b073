/**
 * What every POSTER_RATE_LIMIT limiter promises, whoever keeps the counts (files, Redis): one
 * suite of cases, run against each limiter by rate-contract.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { RateLimiter } from '../../../src/poster/limits/limits.js';
import { rateWindow, TooManyRequests } from '../../../src/poster/limits/rate.js';

/** 12:00:10 UTC: 50 s left in its window. */
export const T0 = Date.UTC(2030, 0, 1, 12, 0, 10);

export interface RateStore {
  /** A limiter counting in this store, as one process (or instance) would. */
  limiter(limit: number): RateLimiter;
}

/**
 * A fresh, empty store whose windows follow `clock` (a directory for the files, a fake Redis for
 * Redis, whose TIME is the clock). Cleans up after `t`.
 */
export type OpenRateStore = (t: TestContext, clock: () => number) => Promise<RateStore>;

/** A store and a limiter on it, and the clock both read, starting at T0. */
async function setUp(t: TestContext, open: OpenRateStore, limit: number) {
  const clock = { now: T0 };
  const store = await open(t, () => clock.now);
  return { clock, store, limiter: store.limiter(limit) };
}

/** Asserts that `take` is refused with a 429 for `limit`; returns the refusal. */
async function refused(limiter: RateLimiter, subject: string, limit: number): Promise<TooManyRequests> {
  const err = await limiter.take(subject).then(() => assert.fail(`request of ${subject} admitted`), (e: unknown) => e);
  assert.ok(err instanceof TooManyRequests, String(err));
  assert.equal(err.status, 429);
  assert.match(err.message, new RegExp(`made its ${limit} poster requests of the minute`));
  return err;
}

/** Takes `count` requests of `subject`, one after another; each must be admitted. */
async function admitted(limiter: RateLimiter, subject: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await limiter.take(subject);
}

export function rateLimiterContract(name: string, open: OpenRateStore): void {
  describe(`${name}: the POSTER_RATE_LIMIT contract`, () => {
    for (const limit of [1, 3]) {
      it(`with limit ${limit}, admits the first ${limit} of a subject's requests in a window and refuses request ${limit + 1}, with Retry-After to the window's end`, async (t) => {
        const { limiter } = await setUp(t, open, limit);
        await admitted(limiter, 'ana', limit);
        const refusal = await refused(limiter, 'ana', limit);
        assert.equal(refusal.headers['retry-after'], String((rateWindow(T0).endsAt - T0) / 1000));
      });
    }

    it('keeps refusing until the window\'s last millisecond, then gives the next window the whole limit again', async (t) => {
      const limit = 2;
      const { clock, limiter } = await setUp(t, open, limit);
      await admitted(limiter, 'ana', limit);
      const { endsAt } = rateWindow(T0);
      clock.now = endsAt - 1;
      assert.equal((await refused(limiter, 'ana', limit)).headers['retry-after'], '1');
      clock.now = endsAt;
      await admitted(limiter, 'ana', limit);
      assert.equal((await refused(limiter, 'ana', limit)).headers['retry-after'], String((rateWindow(endsAt).endsAt - endsAt) / 1000));
    });

    it('counts fixed windows: a subject may make the limit at the end of one window and again at the start of the next', async (t) => {
      const limit = 3;
      const { clock, limiter } = await setUp(t, open, limit);
      const { endsAt } = rateWindow(T0);
      clock.now = endsAt - 1;
      await admitted(limiter, 'ana', limit);
      clock.now = endsAt;
      await admitted(limiter, 'ana', limit);
      await refused(limiter, 'ana', limit);
    });

    it('counts each subject in a bucket of its own', async (t) => {
      const limit = 2;
      const { limiter } = await setUp(t, open, limit);
      await admitted(limiter, 'ana', limit);
      await refused(limiter, 'ana', limit);
      // Subjects that differ in case, by a space, or in Unicode are others.
      for (const other of ['bo', 'Ana', 'ana ', 'an\u00e1']) await admitted(limiter, other, limit);
      for (const other of ['bo', 'Ana', 'ana ', 'an\u00e1']) await refused(limiter, other, limit);
    });

    it('admits exactly the limit when requests of one subject race', async (t) => {
      const limit = 5;
      const { limiter } = await setUp(t, open, limit);
      const results = await Promise.allSettled(Array.from({ length: 4 * limit }, () => limiter.take('ana')));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, limit);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof TooManyRequests, String(r.reason));
    });

    it('shares the count with every limiter on the same store (other processes, other instances, a restart)', async (t) => {
      const limit = 3;
      const { store, limiter } = await setUp(t, open, limit);
      const other = store.limiter(limit);
      await limiter.take('ana');
      await other.take('ana');
      await limiter.take('ana');
      await refused(other, 'ana', limit);
      await refused(store.limiter(limit), 'ana', limit);
    });

    it('refuses a limit that is not a positive integer: 0 means no limiter at all', async (t) => {
      const { store } = await setUp(t, open, 1);
      for (const limit of [0, -1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
        assert.throws(() => store.limiter(limit), TypeError, String(limit));
      }
    });
  });
}

/**
 * POSTER_RATE_LIMIT counted in Redis (REDIS_URL), shared by every instance on every machine.
 *
 * The same fixed windows as the files (`rate.ts`), one key per subject and window, counted by
 * one script: INCR, and an expiry on a new window's key. Redis' own clock (TIME) picks the
 * window, so instances whose clocks disagree still count in the same window, and INCR is atomic,
 * so exactly the first POSTER_RATE_LIMIT requests of a window are admitted however many
 * instances race.
 */
import { createScript, RedisProtocolError, type RedisClient, type RedisReply, type RedisScript } from '../../redis/index.js';
import type { RateLimiter } from './limits.js';
import type { OutageGuard } from './redis-outage.js';
import { RATE_WINDOW_MS, retryAfterSeconds, subjectFileStem, TooManyRequests } from './rate.js';

/** The prefix of every window key: `poster-rate:<subject digest>:<window index>`. */
export const RATE_KEY_PREFIX = 'poster-rate:';

/**
 * KEYS[1]: the subject's key prefix; ARGV[1]: the window in ms. Returns the count after this
 * request and the milliseconds left in its window. A key lives two windows: a request seen late
 * still finds its window's count.
 */
const TAKE: Readonly<RedisScript> = createScript(`local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
local index = math.floor(now / window)
local key = KEYS[1] .. ':' .. index
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, window * 2) end
return {count, (index + 1) * window - now}
`);

export interface RedisRateLimiterOptions {
  readonly client: Pick<RedisClient, 'evalScript'>;
  readonly guard: OutageGuard;
  /** Requests per window and subject; at least 1. */
  readonly limit: number;
}

export class RedisRateLimiter implements RateLimiter {
  readonly #client: Pick<RedisClient, 'evalScript'>;
  readonly #guard: OutageGuard;
  readonly #limit: number;

  constructor({ client, guard, limit }: RedisRateLimiterOptions) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new TypeError('the rate limit must be a positive integer');
    this.#client = client;
    this.#guard = guard;
    this.#limit = limit;
  }

  async take(subject: string): Promise<void> {
    const key = `${RATE_KEY_PREFIX}${subjectFileStem(subject)}`;
    const [count, leftMs] = await this.#guard.failClosed(async () => integerPair(await this.#client.evalScript(TAKE, [key], [RATE_WINDOW_MS])));
    if (count > this.#limit) throw new TooManyRequests(this.#limit, retryAfterSeconds(0, leftMs));
  }
}

/** A script's `{a, b}` reply as two integers; anything else is a protocol failure (answered 503). */
export function integerPair(reply: RedisReply): [number, number] {
  if (Array.isArray(reply) && reply.length === 2 && typeof reply[0] === 'number' && typeof reply[1] === 'number') return [reply[0], reply[1]];
  throw new RedisProtocolError('a poster limits script answered something other than two integers');
}

/**
 * POSTER_MAX_BYTES counted in Redis (REDIS_URL), shared by every instance on every machine; the
 * posters themselves stay in the shared PUBLIC_DIR.
 *
 * Three keys: the total (`poster-store:bytes`), each counted poster's size by name
 * (`poster-store:names`, so a poster is counted once whoever writes it) and a mark that the count
 * is whole (`poster-store:counted`). Admitting a poster is one script: "count it if the store
 * stays within the limit", so two instances racing at the limit cannot both pass.
 *
 * The count is built from the files: at start-up every file Redis does not know yet is added
 * (instances already running keep counting), and when the mark is missing (a new or flushed
 * Redis, or an operator who deleted it to have posters removed by hand forgotten) the count is
 * replaced by the files, before the next poster is admitted. Either is one script, so no instance
 * ever sees half a count.
 */
import { join } from 'node:path';
import { createScript, RedisProtocolError, type RedisArg, type RedisClient, type RedisReply, type RedisScript } from '../../redis/index.js';
import type { Admission, StoreCount, StoredPoster } from './limits.js';
import { fileSize, InsufficientStorage, listPosters } from './quota.js';
import type { OutageGuard } from './redis-outage.js';
import { integerPair } from './redis-rate.js';

/** The keys, in the order every script takes them. */
export const STORE_KEYS: readonly string[] = ['poster-store:bytes', 'poster-store:names', 'poster-store:counted'];

/** ARGV: name, size, name, size…. Replaces the count when the mark is missing, else adds the unknown names. */
const COUNT_FILES: Readonly<RedisScript> = createScript(`if redis.call('EXISTS', KEYS[3]) == 0 then redis.call('DEL', KEYS[1], KEYS[2]) end
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
for i = 1, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) == 1 then total = total + tonumber(ARGV[i + 1]) end
end
redis.call('SET', KEYS[1], total)
redis.call('SET', KEYS[3], '1')
return total
`);

/**
 * ARGV: name, size, limit. Returns {outcome, total}: 1 counted now, 0 counted already (by name),
 * -1 no whole count (the mark is missing), -2 past the limit.
 */
const ADMIT: Readonly<RedisScript> = createScript(`if redis.call('EXISTS', KEYS[3]) == 0 then return {-1, 0} end
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {0, total} end
if total + tonumber(ARGV[2]) > tonumber(ARGV[3]) then return {-2, total} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return {1, redis.call('INCRBY', KEYS[1], ARGV[2])}
`);

/** Returns {1, total} with a whole count, {-1, 0} without. */
const TOTAL: Readonly<RedisScript> = createScript(`if redis.call('EXISTS', KEYS[3]) == 0 then return {-1, 0} end
return {1, tonumber(redis.call('GET', KEYS[1]) or '0')}
`);

/** ARGV: name. Uncounts a poster that was admitted but never written; returns {1, total}. */
const RELEASE: Readonly<RedisScript> = createScript(`local size = redis.call('HGET', KEYS[2], ARGV[1])
if size then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return {1, redis.call('DECRBY', KEYS[1], size)}
end
return {1, tonumber(redis.call('GET', KEYS[1]) or '0')}
`);

const COUNTED_NOW = 1;
const NOT_COUNTED = -1;
const PAST_LIMIT = -2;

export interface RedisStoreCountOptions {
  readonly client: Pick<RedisClient, 'evalScript'>;
  readonly guard: OutageGuard;
  /** `<PUBLIC_DIR>/posters`. */
  readonly postersDir: string;
  /** POSTER_MAX_BYTES. */
  readonly limit: number;
}

export class RedisStoreCount implements StoreCount {
  readonly #client: Pick<RedisClient, 'evalScript'>;
  readonly #guard: OutageGuard;
  readonly #dir: string;
  readonly #limit: number;
  #total = 0;
  /** Whether this process has added the files it found at start-up. */
  #startCounted = false;
  /** One count of the files at a time. */
  #counting: Promise<void> | undefined;

  constructor({ client, guard, postersDir, limit }: RedisStoreCountOptions) {
    this.#client = client;
    this.#guard = guard;
    this.#dir = postersDir;
    this.#limit = limit;
  }

  get total(): number {
    return this.#total;
  }

  /** Adds the files to the count; the service starts it at once, and every admission waits for it. */
  countFiles(): Promise<void> {
    this.#counting ??= this.#countFiles().finally(() => (this.#counting = undefined));
    return this.#counting;
  }

  async checkRoom(): Promise<void> {
    const [, total] = await this.#run(TOTAL, [], true);
    if (total >= this.#limit) throw new InsufficientStorage(this.#limit, total);
  }

  async admit(poster: StoredPoster): Promise<Admission> {
    const [outcome, total] = await this.#run(ADMIT, [poster.name, poster.bytes, this.#limit], true);
    if (outcome === PAST_LIMIT) throw new InsufficientStorage(this.#limit, total);
    if (outcome !== COUNTED_NOW) return { written: async () => {}, release: async () => {} };
    let written = false;
    return {
      written: async () => void (written = true),
      // Counted but not written by us: uncounted unless the file is there (another instance
      // linked the same poster). A failure here leaves the poster counted: a count too high
      // refuses early, it never lets the store overflow.
      release: async () => {
        if (written || (await fileSize(join(this.#dir, poster.name))) !== undefined) return;
        await this.#run(RELEASE, [poster.name], false).catch(() => {});
      },
    };
  }

  /**
   * Runs a script, after the start-up count when `counted` asks for a whole count; a script that
   * finds the mark missing has the files counted, then runs once more.
   */
  async #run(script: RedisScript, args: readonly RedisArg[], counted: boolean): Promise<[number, number]> {
    if (counted && !this.#startCounted) await this.countFiles();
    const run = (recounted: boolean) => this.#guard.failClosed(async () => {
      const reply = integerPair(await this.#client.evalScript(script, STORE_KEYS, args));
      if (recounted && reply[0] === NOT_COUNTED) throw new RedisProtocolError('the poster store count was lost again as soon as it was made');
      return reply;
    });
    let reply = await run(false);
    if (reply[0] === NOT_COUNTED) {
      await this.countFiles();
      reply = await run(true);
    }
    this.#total = reply[1];
    return reply;
  }

  async #countFiles(): Promise<void> {
    const args: RedisArg[] = [];
    for (const poster of await listPosters(this.#dir)) args.push(poster.name, poster.bytes);
    this.#total = await this.#guard.failClosed(async () => integerOf(await this.#client.evalScript(COUNT_FILES, STORE_KEYS, args)));
    this.#startCounted = true;
  }
}

function integerOf(reply: RedisReply): number {
  if (typeof reply === 'number') return reply;
  throw new RedisProtocolError('the poster store count script answered something other than an integer');
}

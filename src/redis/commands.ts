/**
 * The commands the client sends: its handshake, and the few typed commands the service needs,
 * over any `command` function, each checking the type of its reply so a caller gets a number or
 * a Buffer, never a guess.
 */
import type { RedisArg } from './encoder.js';
import { RedisError, RedisProtocolError } from './errors.js';
import type { RedisReply } from './parser.js';
import type { RedisEndpoint } from '../config/index.js';
import { createScript, type RedisScript } from './script.js';

/** What the helpers send commands through (the client). */
export interface CommandRunner {
  command(args: readonly RedisArg[]): Promise<RedisReply>;
}

export interface SetOptions {
  /** Expire after this many milliseconds (`PX`). */
  readonly expireMs?: number;
  /** Only when the key does not exist (`NX`). */
  readonly onlyIfAbsent?: boolean;
}

/** A fixed window's count after one more, and the time it has left. */
export interface WindowCount {
  readonly count: number;
  /** Milliseconds until the window (the key) expires. */
  readonly ttlMs: number;
}

/**
 * INCR, then PEXPIRE only when the key has no expiry (a new window, or a key left without one),
 * as one script so no crash in between leaves a counter that never expires. `PEXPIRE … NX`
 * (Redis 7) would say the same but older servers refuse it; PTTL works since 2.6.
 */
const INCR_WITH_EXPIRY: Readonly<RedisScript> = createScript(`local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {count, ttl}
`);

/** AUTH (when the URL has a password), SELECT (for a db other than 0), and a PING that proves Redis serves. */
export function handshakeOf(endpoint: RedisEndpoint): RedisArg[][] {
  const commands: RedisArg[][] = [];
  if (endpoint.password !== undefined) {
    commands.push(endpoint.username === undefined ? ['AUTH', endpoint.password] : ['AUTH', endpoint.username, endpoint.password]);
  }
  if (endpoint.db !== 0) commands.push(['SELECT', endpoint.db]);
  commands.push(['PING']);
  return commands;
}

/** `GET key`. */
export async function get(runner: CommandRunner, key: RedisArg): Promise<Buffer | null> {
  const reply = await runner.command(['GET', key]);
  if (reply === null || Buffer.isBuffer(reply)) return reply;
  throw unexpected('GET', reply);
}

/** `SET key value [PX ms] [NX]`: true when set, false when NX found the key. */
export async function set(runner: CommandRunner, key: RedisArg, value: RedisArg, options: SetOptions = {}): Promise<boolean> {
  const args: RedisArg[] = ['SET', key, value];
  if (options.expireMs !== undefined) args.push('PX', positiveInteger(options.expireMs, 'expireMs'));
  if (options.onlyIfAbsent) args.push('NX');
  const reply = await runner.command(args);
  if (reply === 'OK') return true;
  if (reply === null) return false;
  throw unexpected('SET', reply);
}

/** `DEL key…`: how many of the keys existed. */
export async function del(runner: CommandRunner, keys: readonly RedisArg[]): Promise<number> {
  if (keys.length === 0) throw new TypeError('DEL needs at least one key');
  const reply = await runner.command(['DEL', ...keys]);
  if (typeof reply === 'number') return reply;
  throw unexpected('DEL', reply);
}

/** One more in the window `key` of `windowMs` milliseconds (see INCR_WITH_EXPIRY). */
export async function incrWithExpiry(runner: CommandRunner, key: RedisArg, windowMs: number): Promise<WindowCount> {
  const reply = await evalScript(runner, INCR_WITH_EXPIRY, [key], [positiveInteger(windowMs, 'windowMs')]);
  if (Array.isArray(reply) && reply.length === 2 && typeof reply[0] === 'number' && typeof reply[1] === 'number') {
    return { count: reply[0], ttlMs: reply[1] };
  }
  throw unexpected('the INCR-with-expiry script', reply);
}

/** EVALSHA, and EVAL with the text when Redis answers NOSCRIPT (it restarted, or its cache was flushed). */
export async function evalScript(runner: CommandRunner, script: RedisScript, keys: readonly RedisArg[], args: readonly RedisArg[]): Promise<RedisReply> {
  try {
    return await runner.command(['EVALSHA', script.sha1, keys.length, ...keys, ...args]);
  } catch (err) {
    if (!(err instanceof RedisError) || err.prefix !== 'NOSCRIPT') throw err;
    return runner.command(['EVAL', script.source, keys.length, ...keys, ...args]);
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer of milliseconds, not ${value}`);
  return value;
}

function unexpected(command: string, reply: RedisReply): RedisProtocolError {
  return new RedisProtocolError(`unexpected reply to ${command}: ${kindOf(reply)}`);
}

function kindOf(reply: RedisReply): string {
  if (reply === null) return 'nil';
  if (Buffer.isBuffer(reply)) return 'a bulk string';
  if (Array.isArray(reply)) return `an array of ${reply.length}`;
  if (reply instanceof RedisError) return 'an error';
  return `a ${typeof reply === 'string' ? 'simple string' : 'integer'}`;
}

/**
 * Redis, the door of `redis/`: our own small client for the limits several machines share
 * (`REDIS_URL`). `redis-url.ts` parses the URL (beside this folder, so the settings read it
 * without loading the client), `redis/encoder.ts` and `redis/parser.ts` speak RESP2 (bounded,
 * linear), `redis/link.ts` is one connection, `redis/client.ts` the client (pipelining,
 * AUTH/SELECT, timeouts, reconnection), `redis/commands.ts` its typed commands, `redis/errors.ts`
 * what it rejects with.
 */
export { DEFAULT_REDIS_PORT, describeEndpoint, MAX_REDIS_DB, parseRedisUrl, type RedisEndpoint } from '../config/index.js';
export { encodeCommand, type RedisArg } from './encoder.js';
export { DEFAULT_REPLY_LIMITS, ReplyParser, type RedisReply, type ReplyLimits } from './parser.js';
export { DEFAULT_BACKOFF, reconnectDelay, type BackoffPolicy } from './backoff.js';
export { createScript, type RedisScript } from './script.js';
export type { SetOptions, WindowCount } from './commands.js';
export {
  createRedisClient,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_COMMANDS,
  RedisClient,
  type RedisClientOptions,
  type RedisState,
  type RedisStateChange,
} from './client.js';
export {
  REDIS_FAILURES,
  RedisError,
  RedisFailure,
  RedisProtocolError,
  RedisTimeout,
  RedisUnavailable,
  type RedisFailureCode,
  type UnavailableReason,
} from './errors.js';

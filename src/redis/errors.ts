/**
 * What the Redis client rejects with: one base class with a stable `code`, one subclass per
 * code. Callers answer 503 on `RedisUnavailable` and `RedisTimeout` (Redis is away or slow: fail
 * closed); a `RedisError` is Redis' own answer to one command. No message ever holds a password:
 * they name the endpoint through `describeEndpoint`, which leaves it out.
 */

/** Every failure of the client by its stable code, with the class that carries it. */
export const REDIS_FAILURES = {
  redis_error: 'RedisError',
  redis_unavailable: 'RedisUnavailable',
  redis_timeout: 'RedisTimeout',
  redis_protocol: 'RedisProtocolError',
} as const;

export type RedisFailureCode = keyof typeof REDIS_FAILURES;

/** The base of every error the client rejects with. */
export class RedisFailure extends Error {
  readonly code: RedisFailureCode;

  constructor(code: RedisFailureCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = REDIS_FAILURES[code];
  }
}

/**
 * Redis' error reply (`-ERR unknown command`, `-NOSCRIPT …`, `-WRONGPASS …`): the command reached
 * Redis and was refused. Also a value inside an array reply (EXEC's results).
 */
export class RedisError extends RedisFailure {
  /** The first word of the reply, by Redis' convention its kind: `ERR`, `NOSCRIPT`, `WRONGTYPE`. */
  readonly prefix: string;

  constructor(message: string) {
    super('redis_error', message);
    const space = message.indexOf(' ');
    this.prefix = space === -1 ? message : message.slice(0, space);
  }
}

/** Why a command could not be sent or answered. */
export type UnavailableReason =
  /** No connection right now (Redis is away; a retry is scheduled). */
  | 'disconnected'
  /** The connection was lost (or dropped by us) after the command was written: it may have run. */
  | 'connection_lost'
  /** More commands wait for answers than the client allows. */
  | 'overloaded'
  /** `close()` was called. */
  | 'closed';

/** The command was not answered because Redis cannot be reached: answer 503, try again later. */
export class RedisUnavailable extends RedisFailure {
  readonly reason: UnavailableReason;

  constructor(reason: UnavailableReason, message: string, options?: ErrorOptions) {
    super('redis_unavailable', message, options);
    this.reason = reason;
  }
}

/**
 * The command had no answer within its time. It may still run on Redis; the client drops the
 * connection (the order of the answers after it is no longer known) and connects again.
 */
export class RedisTimeout extends RedisFailure {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, message: string) {
    super('redis_timeout', message);
    this.timeoutMs = timeoutMs;
  }
}

/** The bytes from Redis broke RESP or one of the client's bounds, or a reply had an unexpected type. */
export class RedisProtocolError extends RedisFailure {
  constructor(message: string) {
    super('redis_protocol', message);
  }
}

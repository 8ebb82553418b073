/**
 * The Redis client: one connection per process, commands pipelined (written at once, replies
 * matched in order), AUTH, SELECT and a PING sent first on every connection, bounded waits, and
 * reconnection with backoff. It fails closed and fast: while Redis is away a command rejects at
 * once with `RedisUnavailable`, a command not answered in time with `RedisTimeout`; nothing waits
 * without a bound, and the client connects again by itself.
 *
 * Commands made while a connection is being opened wait for it (each within its own timeout):
 * at start-up the first requests need not fail because the connection is a few milliseconds
 * young. Between attempts (after a failure, during the backoff) they fail at once.
 */
import type { ConnectionOptions } from 'node:tls';
import { DEFAULT_BACKOFF, reconnectDelay, type BackoffPolicy } from './backoff.js';
import { del, evalScript, get, handshakeOf, incrWithExpiry, set, type SetOptions, type WindowCount } from './commands.js';
import { encodeCommand, type RedisArg } from './encoder.js';
import { RedisTimeout, RedisUnavailable } from './errors.js';
import { Fifo } from './fifo.js';
import { Link, type LinkListener, type Pending } from './link.js';
import type { RedisReply, ReplyLimits } from './parser.js';
import type { RedisScript } from './script.js';
import { describeEndpoint, type RedisEndpoint } from '../config/index.js';

/**
 * - `connecting`: a connection is being opened (TCP, TLS, AUTH, SELECT, PING); commands wait.
 * - `ready`: commands are written at once.
 * - `disconnected`: the last attempt failed or the connection was lost; a retry is scheduled and
 *   commands fail at once.
 * - `closed`: `close()` was called; commands fail at once, for good.
 */
export type RedisState = 'connecting' | 'ready' | 'disconnected' | 'closed';

/** What an `onStateChange` listener is told. */
export interface RedisStateChange {
  readonly state: RedisState;
  readonly previous: RedisState;
  /** Why the connection failed or was lost (for `disconnected`); never holds the password. */
  readonly error: Error | undefined;
}

export interface RedisClientOptions {
  /** How long opening a connection may take, TLS and AUTH/SELECT/PING included. */
  readonly connectTimeoutMs?: number;
  /** How long a command may wait for its reply, from the moment it is made. */
  readonly commandTimeoutMs?: number;
  /** Waits between connection attempts. */
  readonly backoff?: BackoffPolicy;
  /** Bounds on replies (see DEFAULT_REPLY_LIMITS). */
  readonly replyLimits?: Partial<ReplyLimits>;
  /** Commands that may wait for a reply at once; one more fails with RedisUnavailable('overloaded'). */
  readonly maxPendingCommands?: number;
  /** Passed to `tls.connect` for rediss:// (a CA, a client certificate…). */
  readonly tls?: ConnectionOptions;
}

/**
 * Redis on a LAN answers in well under a millisecond: a command without an answer in a second
 * is one whose caller should already be answering 503. Opening a connection gets two (a TLS
 * handshake and AUTH are three round trips more).
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;

/**
 * Ten thousand commands pipelined in one go are ordinary; fifty thousand waiting at once means
 * Redis has stalled or a caller loops, and memory should not be what stops it.
 */
export const DEFAULT_MAX_PENDING_COMMANDS = 50_000;

/** Creates a client and starts connecting to `endpoint`. */
export function createRedisClient(endpoint: RedisEndpoint, options: RedisClientOptions = {}): RedisClient {
  return new RedisClient(endpoint, options);
}

/** A client of one Redis: see the module's comment. Made by `createRedisClient`. */
export class RedisClient {
  readonly #endpoint: RedisEndpoint;
  readonly #description: string;
  readonly #connectTimeoutMs: number;
  readonly #commandTimeoutMs: number;
  readonly #backoff: BackoffPolicy;
  readonly #replyLimits: Partial<ReplyLimits>;
  readonly #maxPending: number;
  readonly #tls: ConnectionOptions | undefined;
  readonly #listeners = new Set<(change: RedisStateChange) => void>();
  /** Commands made while connecting, to be written once the connection is ready. */
  readonly #waiting = new Fifo<Pending>();
  readonly #linkListener: LinkListener;
  #state: RedisState = 'connecting';
  #link: Link | undefined;
  #lastError: Error | undefined;
  /** Failed attempts since the last ready connection: the backoff's exponent. */
  #attempts = 0;
  #connectTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #closed: Promise<void> | undefined;
  #onLinkGone: (() => void) | undefined;

  constructor(endpoint: RedisEndpoint, options: RedisClientOptions = {}) {
    this.#endpoint = endpoint;
    this.#description = describeEndpoint(endpoint);
    this.#connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#replyLimits = options.replyLimits ?? {};
    this.#maxPending = options.maxPendingCommands ?? DEFAULT_MAX_PENDING_COMMANDS;
    this.#tls = options.tls;
    this.#linkListener = {
      onConnect: (link) => this.#onConnect(link),
      onReply: (link, pending, reply) => this.#onReply(link, pending, reply),
      onDown: (link, error) => this.#onDown(link, error),
    };
    this.#openLink();
  }

  /** Where the client connects, without the password. */
  get endpoint(): string {
    return this.#description;
  }

  get state(): RedisState {
    return this.#state;
  }

  /** Whether commands are written at once (`state === 'ready'`). */
  isReady(): boolean {
    return this.#state === 'ready';
  }

  /** Why the last connection failed or was lost (kept after recovery); never holds the password. */
  get lastError(): Error | undefined {
    return this.#lastError;
  }

  /** Calls `listener` on every change of state; returns the function that stops it. */
  onStateChange(listener: (change: RedisStateChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sends a command (`['INCR', 'k']`) and resolves with its reply. Rejects with Redis' own
   * `RedisError`, or `RedisUnavailable`, `RedisTimeout`, `RedisProtocolError`; a TypeError for
   * arguments that cannot be sent.
   */
  command(args: readonly RedisArg[]): Promise<RedisReply> {
    let bytes: Buffer;
    try {
      bytes = encodeCommand(args);
    } catch (err) {
      return Promise.reject(err);
    }
    const refusal = this.#refusal();
    if (refusal) return Promise.reject(refusal);
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        bytes,
        name: commandName(args[0]!),
        deadline: Date.now() + this.#commandTimeoutMs,
        settle: (reply) => (reply instanceof Error ? reject(reply) : resolve(reply)),
      };
      if (this.#state === 'ready') this.#link!.write(pending);
      else this.#waiting.push(pending);
      this.#armDeadlineTimer();
    });
  }

  /** `GET key`: the value's bytes, or null when there is none. */
  get(key: RedisArg): Promise<Buffer | null> {
    return get(this, key);
  }

  /** `SET key value [PX ms] [NX]`: whether it was set (false when NX found the key). */
  set(key: RedisArg, value: RedisArg, options?: SetOptions): Promise<boolean> {
    return set(this, key, value, options);
  }

  /** `DEL key…`: how many keys there were. */
  del(...keys: readonly RedisArg[]): Promise<number> {
    return del(this, keys);
  }

  /**
   * Counts one more in the window `key`: INCR, and the expiry `windowMs` set when the key has
   * none (a new window), atomically. Resolves with the count and the window's remaining time.
   */
  incrWithExpiry(key: RedisArg, windowMs: number): Promise<WindowCount> {
    return incrWithExpiry(this, key, windowMs);
  }

  /** Runs `script` with EVALSHA, sending its text with EVAL only when Redis has not cached it (NOSCRIPT). */
  evalScript(script: RedisScript, keys: readonly RedisArg[], args: readonly RedisArg[]): Promise<RedisReply> {
    return evalScript(this, script, keys, args);
  }

  /**
   * Stops: new commands fail with RedisUnavailable('closed'), commands already written get their
   * replies (or their timeout), then the connection ends. Resolves once it has; idempotent.
   */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    const wasReady = this.#state === 'ready';
    this.#setState('closed', undefined);
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#connectTimer);
    this.#rejectWaiting(new RedisUnavailable('closed', `the Redis client of ${this.#description} is closed`));
    this.#closed = new Promise((resolve) => (this.#onLinkGone = resolve));
    const link = this.#link;
    if (!link || link.isDown) this.#onLinkGone!();
    else if (!wasReady) link.destroy(new RedisUnavailable('closed', `the Redis client of ${this.#description} is closed`));
    else if (link.inFlight.length === 0) link.end();
    return this.#closed;
  }

  /** Why a command cannot be made now, or undefined when it can. */
  #refusal(): RedisUnavailable | undefined {
    switch (this.#state) {
      case 'ready':
      case 'connecting':
        if (this.#waiting.length + (this.#link?.inFlight.length ?? 0) < this.#maxPending) return undefined;
        return new RedisUnavailable('overloaded', `${this.#maxPending} commands already wait for ${this.#description}`);
      case 'disconnected':
        return new RedisUnavailable('disconnected', `Redis at ${this.#description} is unavailable: ${this.#lastError?.message ?? 'not connected'}`, { cause: this.#lastError });
      case 'closed':
        return new RedisUnavailable('closed', `the Redis client of ${this.#description} is closed`);
    }
  }

  #openLink(): void {
    this.#setState('connecting', undefined);
    const link = new Link(this.#endpoint, this.#replyLimits, this.#tls, this.#linkListener);
    this.#link = link;
    this.#connectTimer = setTimeout(() => {
      link.destroy(new RedisUnavailable('disconnected', `no connection to Redis at ${this.#description} within ${this.#connectTimeoutMs} ms`));
    }, this.#connectTimeoutMs);
  }

  /** Connected: AUTH, SELECT and PING first; commands are written once all three are answered. */
  #onConnect(link: Link): void {
    const handshake = handshakeOf(this.#endpoint);
    let unanswered = handshake.length;
    const deadline = Date.now() + this.#connectTimeoutMs; // the connect timer bounds these
    for (const args of handshake) {
      link.write({
        bytes: encodeCommand(args),
        name: String(args[0]),
        deadline,
        settle: (reply) => {
          if (reply instanceof Error) {
            // the first refusal says why: WRONGPASS, NOAUTH, 'ERR DB index is out of range', LOADING
            if (!link.isDown) link.destroy(reply);
            return;
          }
          if (--unanswered === 0) this.#onHandshake(link);
        },
      });
    }
  }

  #onHandshake(link: Link): void {
    clearTimeout(this.#connectTimer);
    this.#attempts = 0;
    this.#setState('ready', undefined);
    for (let pending = this.#waiting.shift(); pending; pending = this.#waiting.shift()) link.write(pending);
  }

  #onReply(link: Link, pending: Pending, reply: RedisReply): void {
    pending.settle(reply);
    // closing: the last awaited reply is in, the connection may end
    if (this.#state === 'closed' && link.inFlight.length === 0) link.end();
  }

  #onDown(link: Link, error: Error | undefined): void {
    clearTimeout(this.#connectTimer);
    if (link === this.#link) this.#link = undefined;
    const closing = this.#state === 'closed';
    const cause = error ?? new Error(closing ? 'the client closed the connection' : 'the connection was closed by Redis');
    if (!closing) this.#lastError = cause;
    const lost = new RedisUnavailable('connection_lost', `the connection to ${this.#description} was lost: ${cause.message}`, { cause });
    for (const pending of link.inFlight.drain()) pending.settle(lost);
    this.#rejectWaiting(new RedisUnavailable('disconnected', `Redis at ${this.#description} is unavailable: ${cause.message}`, { cause }));
    if (closing) {
      this.#onLinkGone?.();
      return;
    }
    this.#setState('disconnected', cause);
    this.#retryTimer = setTimeout(() => this.#openLink(), reconnectDelay(this.#attempts++, this.#backoff));
  }

  /** Rejects the commands waiting for a connection; with no command left, the deadline timer stops. */
  #rejectWaiting(error: Error): void {
    for (const pending of this.#waiting.drain()) pending.settle(error);
    if (this.#link?.inFlight.length) return;
    clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
  }

  /**
   * One timer for every command's deadline. Commands are made with one timeout and written in
   * the order made, so the oldest waiting (or written) command is the first to time out: the
   * timer looks at the heads only, and sets itself again for the next head.
   */
  #armDeadlineTimer(): void {
    if (this.#deadlineTimer) return;
    const next = Math.min(this.#waiting.peek()?.deadline ?? Infinity, this.#link?.inFlight.peek()?.deadline ?? Infinity);
    if (next === Infinity) return;
    this.#deadlineTimer = setTimeout(() => {
      this.#deadlineTimer = undefined;
      this.#expire(Date.now());
      this.#armDeadlineTimer();
    }, Math.max(0, next - Date.now()));
  }

  #expire(now: number): void {
    for (let head = this.#waiting.peek(); head && head.deadline <= now; head = this.#waiting.peek()) {
      this.#waiting.shift();
      head.settle(this.#timeout(head));
    }
    const link = this.#link;
    const head = link?.inFlight.peek();
    if (!link || !head || head.deadline > now) return;
    // The replies after it may come in any order now (or never): drop the connection, connect again.
    link.inFlight.shift();
    const timeout = this.#timeout(head);
    head.settle(timeout);
    link.destroy(timeout);
  }

  #timeout(pending: Pending): RedisTimeout {
    return new RedisTimeout(this.#commandTimeoutMs, `Redis at ${this.#description} did not answer ${pending.name} within ${this.#commandTimeoutMs} ms`);
  }

  #setState(state: RedisState, error: Error | undefined): void {
    const previous = this.#state;
    if (previous === state) return;
    this.#state = state;
    for (const listener of this.#listeners) {
      try {
        listener({ state, previous, error });
      } catch (err) {
        // a listener's bug must not leave the client half-way through a change: report it apart
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}

/** A command's name for messages: its first argument, short. */
function commandName(first: RedisArg): string {
  const text = typeof first === 'string' ? first : typeof first === 'number' ? String(first) : first.toString('latin1');
  return text.length > 32 ? `${text.slice(0, 32)}…` : text;
}

/**
 * One connection to Redis: the socket (TCP or TLS), the parser of its replies, and the commands
 * written on it that wait for their replies, matched first in, first out. The client decides
 * what to write and when to give up; the link only writes, reads and reports.
 */
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { RedisProtocolError } from './errors.js';
import { Fifo } from './fifo.js';
import { ReplyParser, type RedisReply, type ReplyLimits } from './parser.js';
import type { RedisEndpoint } from '../config/index.js';

/** A command written (or to be written) and waiting for its reply. */
export interface Pending {
  /** The command's encoded bytes. */
  readonly bytes: Buffer;
  /** Its name, for messages (never its arguments: AUTH's is a password). */
  readonly name: string;
  /** When it times out, in `Date.now()` milliseconds. */
  readonly deadline: number;
  /** Called once with its reply (a RedisError included) or the reason it has none. */
  settle(reply: RedisReply | Error): void;
}

/** What a link tells its owner. */
export interface LinkListener {
  /** The socket is connected (TLS handshake done for rediss://). */
  onConnect(link: Link): void;
  /** `pending`'s reply arrived. */
  onReply(link: Link, pending: Pending, reply: RedisReply): void;
  /** The socket is gone, once: `error` says why when it was not a clean end. */
  onDown(link: Link, error: Error | undefined): void;
}

/** Opens a connection to `endpoint` and reports on it to `listener`. */
export class Link {
  /** Commands written, oldest first: the next reply is the first one's. */
  readonly inFlight = new Fifo<Pending>();
  readonly #socket: Socket;
  readonly #parser: ReplyParser;
  readonly #listener: LinkListener;
  #corked = false;
  #down = false;
  #error: Error | undefined;

  constructor(endpoint: RedisEndpoint, limits: Partial<ReplyLimits>, tlsOptions: ConnectionOptions | undefined, listener: LinkListener) {
    this.#parser = new ReplyParser(limits);
    this.#listener = listener;
    const options = { host: endpoint.host, port: endpoint.port };
    // SNI takes a host name, never an address (RFC 6066 3)
    this.#socket = endpoint.tls
      ? connectTls({ ...options, servername: isIP(endpoint.host) === 0 ? endpoint.host : undefined, ...tlsOptions }, () => this.#onConnect())
      : connectTcp(options, () => this.#onConnect());
    this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    this.#socket.on('error', (err) => (this.#error ??= err));
    this.#socket.on('close', () => this.#goDown(this.#error));
  }

  /** Whether the socket is gone (reported through `onDown`). */
  get isDown(): boolean {
    return this.#down;
  }

  /** Writes `pending`; writes of one tick leave in one packet. */
  write(pending: Pending): void {
    this.inFlight.push(pending);
    if (!this.#corked) {
      this.#corked = true;
      this.#socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        this.#socket.uncork();
      });
    }
    this.#socket.write(pending.bytes);
  }

  /** Ends the connection once what was written is sent (Redis answers what it read, then sees the end). */
  end(): void {
    this.#socket.end();
  }

  /** Drops the connection now, `error` being why; reported through `onDown` at once. */
  destroy(error: Error): void {
    this.#error ??= error;
    this.#socket.destroy();
    this.#goDown(this.#error);
  }

  #onConnect(): void {
    this.#socket.setNoDelay(true);
    this.#socket.setKeepAlive(true, 30_000);
    if (!this.#down) this.#listener.onConnect(this);
  }

  #onData(chunk: Buffer): void {
    if (this.#down) return;
    let replies: RedisReply[];
    try {
      replies = this.#parser.feed(chunk);
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    for (const reply of replies) {
      const pending = this.inFlight.shift();
      if (!pending) {
        this.destroy(new RedisProtocolError('Redis sent a reply to no command'));
        return;
      }
      this.#listener.onReply(this, pending, reply);
      if (this.#down) return; // the owner dropped the link while handling a reply
    }
  }

  #goDown(error: Error | undefined): void {
    if (this.#down) return;
    this.#down = true;
    this.#listener.onDown(this, error);
  }
}

/**
 * A fake Redis for the client's tests: a node:net server that reads commands (RESP arrays of
 * bulk strings) and answers what the test's `respond` says, raw bytes included, or nothing.
 * `answerScripts` runs the Lua scripts of the code under test, transcribed, on a FakeKeyspace.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createScript, ReplyParser, type RedisReply } from '../../src/redis/index.js';

/** The raw answer to a command, or undefined to answer nothing (yet). */
export type Responder = (args: string[], socket: Socket) => string | undefined;

export class FakeRedis {
  /** Every command received, on every connection, in order. */
  readonly commands: string[][] = [];
  /** Connections accepted so far. */
  connections = 0;
  respond: Responder;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;

  constructor(respond: Responder = answerOk) {
    this.respond = respond;
  }

  get port(): number {
    return this.#port;
  }

  /** Listens on 127.0.0.1, on `port` (the same port again after `stop`) or a free one. */
  async start(port = this.#port): Promise<this> {
    const server = createServer((socket) => this.#accept(socket));
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening and drops every connection: Redis is away. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  #accept(socket: Socket): void {
    this.connections++;
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => {});
    const parser = new ReplyParser();
    socket.on('data', (chunk: Buffer) => {
      for (const command of parser.feed(chunk)) {
        const args = (command as RedisReply[]).map(String);
        this.commands.push(args);
        const answer = this.respond(args, socket);
        if (answer !== undefined) socket.write(answer);
      }
    });
  }
}

/** +OK to everything; GET k answers a bulk string 'v:k', ECHO its argument. */
export function answerOk(args: string[]): string {
  const [name, first] = args;
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'GET' || name === 'ECHO') {
    const value = name === 'GET' ? `v:${first}` : first!;
    return `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
  }
  return '+OK\r\n';
}

/**
 * Keys as Redis keeps them, for the scripts a fake Redis runs: integer values, expiries, and
 * TIME, all on a clock the test moves.
 */
export class FakeKeyspace {
  readonly #entries = new Map<string, { count: number; expiresAt: number | undefined }>();
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  /** TIME: whole seconds and the microseconds past them. */
  time(): [seconds: number, microseconds: number] {
    const now = this.#clock();
    return [Math.floor(now / 1000), (now % 1000) * 1000];
  }

  /** INCR: the value after one more (a missing or expired key counts from 0). */
  incr(key: string): number {
    const entry = this.#live(key);
    if (entry) return ++entry.count;
    this.#entries.set(key, { count: 1, expiresAt: undefined });
    return 1;
  }

  /** PEXPIRE: whether the key exists to expire. */
  pexpire(key: string, ms: number): boolean {
    const entry = this.#live(key);
    if (entry) entry.expiresAt = this.#clock() + ms;
    return entry !== undefined;
  }

  #live(key: string): { count: number; expiresAt: number | undefined } | undefined {
    const entry = this.#entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.#clock()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }
}

/**
 * A Lua script of the code under test, transcribed to run on a FakeKeyspace: KEYS and ARGV in,
 * the raw reply out.
 */
export type FakeScript = (keyspace: FakeKeyspace, keys: string[], args: string[]) => string;

/** A RESP integer, or an array of them (what the counting scripts return). */
export function respIntegers(...values: number[]): string {
  const integers = values.map((value) => `:${value}\r\n`).join('');
  return values.length === 1 ? integers : `*${values.length}\r\n${integers}`;
}

/**
 * EVALSHA and EVAL as Redis answers them, for the scripts given by their Lua text: EVALSHA of a
 * script not yet sent with EVAL is NOSCRIPT, and EVAL of a text with no transcription here is an
 * error (the code under test changed its Lua: transcribe it again). Any other command goes to
 * `fallback`.
 */
export function answerScripts(keyspace: FakeKeyspace, scripts: ReadonlyMap<string, FakeScript>, fallback: Responder = answerOk): Responder {
  const cached = new Map<string, FakeScript>();
  const run = (script: FakeScript, args: string[]) => {
    const keyCount = Number(args[2]);
    return script(keyspace, args.slice(3, 3 + keyCount), args.slice(3 + keyCount));
  };
  return (args, socket) => {
    const [name, scriptOrSha] = args;
    if (name === 'EVALSHA') {
      const script = cached.get(scriptOrSha!);
      return script ? run(script, args) : '-NOSCRIPT No matching script. Please use EVAL.\r\n';
    }
    if (name === 'EVAL') {
      const script = scripts.get(scriptOrSha!);
      if (!script) return '-ERR the fake Redis has no transcription of this script\r\n';
      cached.set(createScript(scriptOrSha!).sha1, script);
      return run(script, args);
    }
    return fallback(args, socket);
  };
}

/**
 * A fake Redis for the client's tests: a node:net server that reads commands (RESP arrays of
 * bulk strings) and answers what the test's `respond` says, raw bytes included, or nothing.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ReplyParser, type RedisReply } from '../../src/redis/index.js';

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

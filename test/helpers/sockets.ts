/**
 * Raw sockets for tests of the connection layer: what the server sent, how and when it closed.
 */
import net from 'node:net';

export interface Conversation {
  readonly socket: net.Socket;
  /** Everything received so far (latin1). */
  received(): string;
  /** Resolves once the server closed: `fin` for a clean end, else the socket error's code. */
  readonly closed: Promise<{ how: 'fin' | string; afterMs: number }>;
}

/** Opens a connection, optionally writes `text` first. */
export async function converse(baseUrl: string, text?: string | Buffer): Promise<Conversation> {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const opened = Date.now();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const closed = new Promise<{ how: string; afterMs: number }>((resolve) => {
    let how = 'fin';
    socket.on('error', (err: NodeJS.ErrnoException) => (how = err.code ?? err.message));
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve({ how, afterMs: Date.now() - opened }));
  });
  if (text !== undefined) socket.write(text);
  return { socket, received: () => Buffer.concat(chunks).toString('latin1'), closed };
}

/** Resolves when `received()` matches, or rejects after `timeoutMs`. */
export async function waitFor(c: Conversation, pattern: RegExp, timeoutMs = 2_000): Promise<string> {
  const start = Date.now();
  while (!pattern.test(c.received())) {
    if (Date.now() - start > timeoutMs) throw new Error(`no ${pattern} within ${timeoutMs} ms; got ${JSON.stringify(c.received())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return c.received();
}

/** The value of a header in a raw response head (lower-cased name), or undefined. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split('\r\n\r\n')[0] ?? '';
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (line.slice(0, colon).toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

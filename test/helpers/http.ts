/**
 * Raw HTTP for black-box tests: targets go out exactly as written (no URL normalisation).
 */
import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The header lines as sent, names and values in turn (a repeated header stays apart). */
  readonly rawHeaders: readonly string[];
  readonly body: string;
}

/** Sends one request with `target` as the literal request target. */
export function send(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: target, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer in 10 s to ${method} ${target}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Writes raw bytes on a fresh connection and returns everything the server sent until it closed. */
export function sendRaw(baseUrl: string, text: string | Buffer, timeoutMs = 5_000): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('no close within the timeout')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.write(text);
  });
}

/** The status code of a raw response text. */
export function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
}

/** The problem document of a JSON problem response; fails unless the content type says so. */
export function problemOf(res: { headers: Record<string, unknown>; body: string }): Record<string, unknown> {
  if (res.headers['content-type'] !== 'application/problem+json') {
    throw new Error(`content-type: wanted application/problem+json, got ${String(res.headers['content-type'])}`);
  }
  return JSON.parse(res.body) as Record<string, unknown>;
}

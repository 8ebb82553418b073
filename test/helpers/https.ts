/**
 * HTTPS clients for tests of the service's own TLS listener: HTTP/1.1 over node:https and h2 over
 * node:http2, both trusting the test CA of test/fixtures/tls/ (README.md there).
 */
import http2 from 'node:http2';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

export const TLS_FIXTURES = 'test/fixtures/tls';
/** The CA that signed every fixture certificate. */
export const TEST_CA = readFileSync(`${TLS_FIXTURES}/ca.pem`, 'utf8');
/** Settings that turn the listener into HTTPS with the `localhost` fixture (serial 1001). */
export const TLS_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  TLS_CERT: `${TLS_FIXTURES}/localhost-chain.pem`,
  TLS_KEY: `${TLS_FIXTURES}/localhost.key`,
});

export interface SecureResponse {
  readonly status: number;
  /** Lower-case names; a repeated header is joined as Node joins it. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** The host and port of `baseUrl`, named `localhost` so the certificate's name matches. */
function target(baseUrl: string): { host: string; port: number } {
  return { host: 'localhost', port: Number(new URL(baseUrl).port) };
}

/** One request over HTTP/1.1 on a new TLS connection. */
export function requestHttp1(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<SecureResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request({ ...target(baseUrl), method, path, headers, ca: TEST_CA, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer in 10 s to ${method} ${path}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** An h2 connection to the service; requests on it share it, as a browser's would. */
export function connectHttp2(baseUrl: string): http2.ClientHttp2Session {
  const { port } = target(baseUrl);
  return http2.connect(`https://localhost:${port}`, { ca: TEST_CA });
}

/** One request on an h2 connection. */
export function requestHttp2(session: http2.ClientHttp2Session, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<SecureResponse> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...headers }, { endStream: body === undefined });
    let head: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const { ':status': status, ...rest } = head;
      resolve({ status: status ?? 0, headers: rest as SecureResponse['headers'], body: Buffer.concat(chunks).toString('utf8') });
    });
    stream.on('error', reject);
    stream.setTimeout(10_000, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    if (body !== undefined) stream.end(body);
  });
}

/** The serial number and ALPN choice a new TLS handshake with the service gets. */
export function handshake(baseUrl: string, alpn: readonly string[] = ['http/1.1']): Promise<{ serial: string; protocol: string | false }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ ...target(baseUrl), servername: 'localhost', ca: TEST_CA, ALPNProtocols: [...alpn] }, () => {
      const result = { serial: socket.getPeerCertificate().serialNumber, protocol: socket.alpnProtocol ?? false };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

/**
 * The service's listener with TLS (docs/deployment.md, "HTTPS without a proxy"): `node:https` serves
 * HTTP/1.1 exactly as the plain listener does (same parser, timeouts, pipelining bound, closing
 * rules), and a connection whose client chose `h2` by ALPN is handed to a `node:http2` server
 * that never listens itself. Both call the same app.
 *
 * Node's own `http2.createSecureServer({ allowHTTP1 })` was not used: on Node 22 its HTTP/1.1
 * side ignores the request and response classes' options, the keep-alive timeout and the Host
 * rule that the plain listener sets, so the same request would be answered differently by
 * protocol version and Node version.
 */
import type { RequestListener, ServerOptions } from 'node:http';
import { constants as http2Constants, createServer as createH2Server, type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { KeyObject } from 'node:crypto';
import type { SecureContextOptions, TLSSocket } from 'node:tls';

const ENHANCE_YOUR_CALM = http2Constants.NGHTTP2_ENHANCE_YOUR_CALM;

/**
 * What each HTTP/2 connection may hold, and how fast it may spend it (SECURITY.md, "What a client cannot do"):
 * the counterparts of the HTTP/1.1 connection's pipelining and header bounds.
 */
export const H2_BOUNDS = Object.freeze({
  /** Streams open at once on one connection (a request each): HTTP/1.1 runs 16 and queues 32. */
  maxConcurrentStreams: 100,
  /** Header bytes of one request, names and values (as the HTTP/1.1 parser's 16 KiB head). */
  maxHeaderListSize: 16 * 1024,
  /** Header fields of one request. */
  maxHeaderListPairs: 128,
  /** Memory one connection may hold in nghttp2's buffers, in MiB. */
  maxSessionMemory: 10,
  /** Pings and settings frames sent and not yet acknowledged (a flood of them is refused). */
  maxOutstandingPings: 10,
  maxOutstandingSettings: 10,
  /** Entries in one SETTINGS frame. */
  maxSettings: 32,
  /**
   * Streams a client may reset in a burst, then per second (rapid reset, CVE-2023-44487): as
   * many as it may have open. Node's default (1,000) let four connections make the service
   * take 4,000 requests in one burst and hold the event loop for a second.
   */
  streamResetBurst: 100,
  streamResetRate: 33,
  /** Frames that break the protocol, and streams refused, before the connection is closed. */
  maxSessionInvalidFrames: 1000,
  maxSessionRejectedStreams: 100,
});

/** What the secure listener is made of. */
export interface SecureServerParts {
  /** The HTTP/1.1 server's options (classes, timeouts): the plain listener's. */
  readonly http1: ServerOptions;
  /** The HTTP/1.1 request listener (the pipelining bound around the app). */
  readonly http1Listener: RequestListener;
  /** The certificate (its chain after it) and the key. */
  readonly credentials: { readonly cert: string; readonly key: KeyObject };
  /** HTTP/2's request listener and response class; undefined offers HTTP/1.1 only (HTTP2=0). */
  readonly http2?: {
    readonly listener: (req: Http2ServerRequest, res: Http2ServerResponse) => void;
    readonly Response: new (stream: ServerHttp2Stream) => Http2ServerResponse;
    /** How long a connection with no open stream stays (the keep-alive timeout's counterpart). */
    readonly idleMs: number;
  };
}

/** The secure listener and, when h2 is offered, the HTTP/2 server its h2 connections go to. */
export interface SecureServer {
  readonly server: HttpsServer;
  readonly http2: Http2Server | undefined;
  /** The open HTTP/2 connections (a stop closes them with GOAWAY). */
  readonly sessions: ReadonlySet<ServerHttp2Session>;
}

/**
 * TLS 1.2 at least, the server's cipher order, no renegotiation (Node refuses it on TLS 1.3 and
 * limits it on 1.2; each connection turns it off below).
 */
const TLS_DEFAULTS: Readonly<SecureContextOptions> = Object.freeze({ minVersion: 'TLSv1.2', honorCipherOrder: true });

/** The options of the secure context a certificate and key make, at start and on every reload. */
export function secureContextOptions(credentials: { readonly cert: string; readonly key: KeyObject }): SecureContextOptions {
  return { ...TLS_DEFAULTS, cert: credentials.cert, key: credentials.key.export({ format: 'pem', type: 'pkcs8' }) };
}

/** The secure listener: HTTP/1.1 on `node:https`, h2 by ALPN on `node:http2`. */
export function createSecureServer(parts: SecureServerParts): SecureServer {
  const server = createHttpsServer(
    { ...parts.http1, ...secureContextOptions(parts.credentials), ALPNProtocols: parts.http2 ? ['h2', 'http/1.1'] : ['http/1.1'] },
    parts.http1Listener,
  );
  const sessions = new Set<ServerHttp2Session>();
  // Node's HTTP/1.1 connection handler is the 'secureConnection' listener node:https installs.
  const [http1Connection] = server.listeners('secureConnection') as ((this: HttpsServer, socket: TLSSocket) => void)[];
  if (http1Connection === undefined) throw new Error('node:https installed no connection handler');
  server.removeListener('secureConnection', http1Connection);
  const http2 = parts.http2 && createH2(parts.http2, sessions);
  server.on('secureConnection', (socket: TLSSocket) => {
    socket.disableRenegotiation();
    if (http2 !== undefined && socket.alpnProtocol === 'h2') http2.emit('connection', socket);
    else http1Connection.call(server, socket);
  });
  return { server, http2, sessions };
}

/** The HTTP/2 server that takes the h2 connections of the secure listener. */
function createH2(options: NonNullable<SecureServerParts['http2']>, sessions: Set<ServerHttp2Session>): Http2Server {
  const { maxConcurrentStreams, maxHeaderListSize, ...bounds } = H2_BOUNDS;
  const server = createH2Server(
    {
      ...bounds,
      settings: { maxConcurrentStreams, maxHeaderListSize, enablePush: false },
      // A subclass of Node's own response, whatever the generic parameters its type carries.
      Http2ServerResponse: options.Response as typeof Http2ServerResponse,
    },
    (req, res) => setImmediate(runStream, req, res, options.listener, maxHeaderListSize),
  );
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // An idle connection closes with GOAWAY, as an idle HTTP/1.1 connection closes; one whose
    // streams cannot finish (a client that opens no window for their bodies) is cut after as long again.
    session.setTimeout(options.idleMs, () => {
      session.close();
      setTimeout(() => session.destroy(), options.idleMs).unref();
    });
  });
  // A stream's own errors (a client's reset) are the client's; the session's are logged by Node.
  server.on('sessionError', () => {});
  return server;
}

/**
 * Runs a stream's request once the read its HEADERS came in has been taken whole (the listener
 * is called on the next turn): a stream its client cancelled in that same read, as a rapid-reset
 * flood does thousands of times, never reaches the app. A header list over `maxHeaderListSize`
 * is refused here too: Node applies the setting only once the client has acknowledged it, after
 * its first request.
 */
function runStream(
  req: Http2ServerRequest, res: Http2ServerResponse, listener: (req: Http2ServerRequest, res: Http2ServerResponse) => void, maxHeaderListSize: number,
): void {
  if (req.stream.destroyed) return;
  if (headerListSize(req.rawHeaders) > maxHeaderListSize) req.stream.close(ENHANCE_YOUR_CALM);
  else listener(req, res);
}

/** A header list's size as HTTP/2 counts it: each field's name and value, and 32 (RFC 9113 6.5.2). */
function headerListSize(rawHeaders: readonly string[]): number {
  let size = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) size += rawHeaders[i]!.length + rawHeaders[i + 1]!.length + 32;
  return size;
}

/** Asks every HTTP/2 connection to finish: GOAWAY, the open streams answered, then closed. */
export function closeSessions(sessions: ReadonlySet<ServerHttp2Session>): void {
  for (const session of sessions) if (!session.closed) session.close();
}

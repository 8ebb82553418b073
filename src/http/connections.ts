/**
 * Bounds on connections (docs/http.md, "Limits"): how many, how long a client may take to send a request head,
 * how long an idle keep-alive connection stays open.
 */
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/** A connection without a complete request head after this long is closed (with a 408). */
export const HEAD_TIMEOUT_MS = 10_000;
/**
 * An idle keep-alive connection is closed after this long (`Keep-Alive: timeout=5`). Node is told
 * to wait IDLE_CLOSE_GRACE_MS more before it closes, so a client that reuses the connection at the
 * last moment is not cut off.
 */
export const IDLE_TIMEOUT_MS = 5_000;
/** The margin after the keep-alive timeout (Node's `keepAliveTimeoutBuffer`). */
export const IDLE_CLOSE_GRACE_MS = 1_000;
/** A whole request (head and body) must arrive within this long. */
export const REQUEST_TIMEOUT_MS = 60_000;
/**
 * A connection on which nothing moves either way for this long is closed: a client that stops
 * reading its answers would otherwise keep its pipelined requests, their buffers and their open
 * files (up to the per-connection bound) for as long as it likes, and a few such clients could
 * hold every slot of the process-wide bound on open static files.
 */
export const STALL_TIMEOUT_MS = 30_000;
/**
 * How often Node looks for connections past their head or request timeout. Node's default (30 s)
 * would let a silent socket live up to 40 s instead of 10.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Timeouts of a server; tests pass small ones. */
export interface ConnectionTimeouts {
  readonly headMs: number;
  readonly idleMs: number;
  readonly requestMs: number;
  readonly checkIntervalMs: number;
  readonly stallMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<ConnectionTimeouts> = {
  headMs: HEAD_TIMEOUT_MS,
  idleMs: IDLE_TIMEOUT_MS,
  requestMs: REQUEST_TIMEOUT_MS,
  checkIntervalMs: TIMEOUT_CHECK_INTERVAL_MS,
  stallMs: STALL_TIMEOUT_MS,
};

/** The options of `createServer` that carry the timeouts. */
export function timeoutOptions(timeouts: ConnectionTimeouts): ServerOptions {
  // Node refuses a head timeout longer than a (non-zero) request timeout.
  const requestMs = Math.max(timeouts.requestMs, timeouts.headMs);
  return {
    headersTimeout: timeouts.headMs,
    requestTimeout: requestMs,
    keepAliveTimeout: timeouts.idleMs,
    keepAliveTimeoutBuffer: IDLE_CLOSE_GRACE_MS,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  };
}

/**
 * Lets clients that shut their write side after the request still read the answer, caps the
 * number of open connections (beyond it, a new connection is closed at once), and closes a
 * connection that neither sends nor takes a byte for `timeouts.stallMs`.
 */
export function applyConnectionRules(server: Server, maxConnections: number, timeouts: ConnectionTimeouts): void {
  // By default Node ends the socket on the client's FIN, before an asynchronous handler answers.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.maxConnections = maxConnections;
  server.on('connection', (socket: Socket) => closeIfSilent(socket, timeouts.headMs));
  // Over TLS the handshake's bytes count as read: the request's own bytes are the TLS socket's.
  server.on('secureConnection', (socket: Socket) => closeIfSilent(socket, timeouts.headMs));
  closeStalled(server, timeouts.stallMs);
}

/** Sweeps per stall timeout: a stalled connection closes within 1⅛ of the timeout. */
const SWEEPS_PER_STALL = 8;

/** A connection's bytes moved so far (read and written), and the sweeps since that count last changed. */
interface Movement {
  bytes: number;
  quietSweeps: number;
}

/**
 * Closes connections on which no byte moved either way for `stallMs`, by a sweep every eighth of
 * it that compares each connection's byte counts with what it saw before: one closes after eight
 * quiet sweeps, between `stallMs` and 1⅛ × `stallMs` after its last byte (counting sweeps, not
 * reading a clock, so a clock step closes nothing). Node's per-socket timeout
 * (`server.setTimeout`) closes them too, but Node re-arms that timer twice a request; the sweep
 * costs nothing per request.
 */
function closeStalled(server: Server, stallMs: number): void {
  const connections = new Map<Socket, Movement>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { bytes: 0, quietSweeps: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  const sweep = setInterval(() => {
    for (const [socket, seen] of connections) {
      // A destroyed socket's written count is undefined; its 'close' removes it.
      const bytes = socket.bytesRead + (socket.bytesWritten ?? 0);
      if (bytes !== seen.bytes) {
        seen.bytes = bytes;
        seen.quietSweeps = 0;
      } else if (++seen.quietSweeps >= SWEEPS_PER_STALL) {
        socket.destroy();
      }
    }
  }, Math.max(1, Math.floor(stallMs / SWEEPS_PER_STALL)));
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}

/**
 * Node's head timeout covers a connection once bytes arrived, not one that never sends any (so on
 * 22 and 24 too): without this, a silent socket lives until the client gives up.
 */
function closeIfSilent(socket: Socket, headMs: number): void {
  const timer = setTimeout(() => {
    if (socket.bytesRead === 0) socket.destroy();
  }, headMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * The graceful stop (docs/http.md, "Limits"): the listener closed, every connection let finish the
 * answers it has under way, then closed without a reset, and whatever is left after
 * STOP_GRACE_MS cut.
 */
import type { Server, ServerResponse } from 'node:http';
import type { ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';

/** How long a graceful stop waits for requests in flight. */
export const STOP_GRACE_MS = 10_000;

/**
 * How long a connection must stay quiet during a stop (no answer under way, no byte moving) before
 * it is closed. A keep-alive client may have sent its next request as the stop began; that
 * request is answered, with `Connection: close`, instead of meeting a closed connection.
 */
const STOP_QUIET_MS = 1_000;
/** Checks per STOP_QUIET_MS: a connection closes between STOP_QUIET_MS and 1¼ of it after its last byte. */
const QUIET_CHECKS = 4;

/** A server socket with the response Node is writing on it, if any. */
type ServerSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * The server's open HTTP/1.1 connections, each removed as it closes: the stop closes the idle
 * ones itself. Over TLS, the connection Node's HTTP/1.1 code writes on is the TLS socket, known
 * once its handshake is done; an h2 connection is its session's to close.
 */
export function watchConnections(server: Server, secure: boolean): ReadonlySet<ServerSocket> {
  const open = new Set<ServerSocket>();
  server.on(secure ? 'secureConnection' : 'connection', (socket: Socket & { alpnProtocol?: string | false }) => {
    if (socket.alpnProtocol === 'h2') return;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return open;
}

/**
 * Stops accepting; every answer from now on says `Connection: close`, so busy connections close
 * as their answer ends, and quiet ones are closed by `closeWhenQuiet`; h2 connections were told
 * to finish (GOAWAY) before. Whatever is still open after STOP_GRACE_MS is cut, once `onLate`
 * has said so.
 */
export async function stopGracefully(
  server: Server, connections: ReadonlySet<ServerSocket>, sessions: ReadonlySet<ServerHttp2Session>, onLate: () => void,
): Promise<void> {
  const closed = closeListener(server);
  const stopSweep = closeWhenQuiet(connections);
  const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), STOP_GRACE_MS).unref());
  if ((await Promise.race([closed, deadline])) === 'late') {
    onLate();
    server.closeAllConnections();
    // An h2 connection whose client never takes its last answer would hold the stop for good.
    for (const session of sessions) session.destroy();
    await closed;
  }
  stopSweep();
}

/**
 * Closes the listener; resolves once every connection has closed too. http.Server's close()
 * first destroys each connection Node counts idle, and Node counts one idle while its client's
 * next request waits unread in the kernel (on a busy machine, most of them): a socket closed
 * with bytes unread sends a reset, and the request is lost. That step is skipped for this call.
 */
function closeListener(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeIdleConnections = () => {};
    try {
      server.close(() => resolve());
    } finally {
      Reflect.deleteProperty(server, 'closeIdleConnections');
    }
  });
}

/**
 * Closes each connection once it has been quiet for STOP_QUIET_MS, with a FIN and reading on:
 * a request that crosses the FIN is read, not met by a reset, and the client, seeing the FIN,
 * closes its side. One whose client has not done so after as long again is destroyed. Returns
 * the function that stops the sweep.
 */
function closeWhenQuiet(connections: ReadonlySet<ServerSocket>): () => void {
  // Per connection: bytes moved at the last check, quiet checks since, whether the stop ended it.
  const seen = new Map<ServerSocket, { bytes: number; checks: number; ended: boolean }>();
  const movedBytes = (socket: ServerSocket) => socket.bytesRead + (socket.bytesWritten ?? 0);
  // An answer under way, or Node closing the connection after its last answer.
  const busy = (socket: ServerSocket) => socket._httpMessage != null || (socket.writableEnded && !seen.get(socket)?.ended);
  const closeIfStillQuiet = (socket: ServerSocket) => {
    const last = seen.get(socket)!;
    if (socket.destroyed || movedBytes(socket) !== last.bytes || busy(socket)) return;
    last.checks = 0;
    if (last.ended) socket.destroy();
    else {
      last.ended = true;
      socket.end();
    }
  };
  const check = () => {
    const quiet: ServerSocket[] = [];
    for (const socket of connections) {
      const bytes = movedBytes(socket);
      const last = seen.get(socket);
      if (last === undefined || bytes !== last.bytes || busy(socket)) seen.set(socket, { bytes, checks: 0, ended: last?.ended ?? false });
      else if (++last.checks >= QUIET_CHECKS) quiet.push(socket);
    }
    // Timers run before the event loop reads its sockets: bytes that arrived while the loop was
    // busy are read first (a request makes its connection busy), and only then is one closed.
    if (quiet.length > 0) setImmediate(() => quiet.forEach(closeIfStillQuiet));
  };
  check();
  const sweep = setInterval(check, STOP_QUIET_MS / QUIET_CHECKS);
  return () => clearInterval(sweep);
}

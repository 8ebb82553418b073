/**
 * The operator's listener (ADMIN_PORT, ADMIN_HOST): `GET /healthz`, `GET /readyz` and
 * `GET /metrics`, and nothing else. It is a server of its own so the service's observed routing
 * stays as it is (everything but `/` is a 404 there), and so a probe never reaches the app: no
 * error line, no access line, no profile.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from '../util/node-http.js';
import type { AddressInfo, Socket } from 'node:net';
import { listen } from '../http/index.js';
import type { ReadinessReport } from './readiness.js';
import { ADMIN_ANSWER_MS, ADMIN_KEEP_ALIVE_MS, AdminConnections } from './admin-connections.js';

/** What the listener serves; its owner (a single process or the cluster primary) provides it. */
export interface AdminSources {
  /** Runs the readiness checks (draining included). */
  readiness(): Promise<ReadinessReport>;
  /** The `/metrics` page, Prometheus' text format. */
  metricsPage(): Promise<string>;
  readonly metricsContentType: string;
}

export interface AdminListener {
  readonly server: Server;
  /** `http://127.0.0.1:9100`, with the real port when ADMIN_PORT=0. */
  readonly url: string;
  close(): Promise<void>;
}

/** The paths served; every one answers GET and HEAD only. */
export const ADMIN_PATHS = ['/healthz', '/readyz', '/metrics'] as const;
const ALLOW = 'GET, HEAD';

/**
 * Starts the listener; rejects (with a message naming ADMIN_PORT or ADMIN_HOST) when it cannot
 * listen. `connections` keeps its slots free for probes (`admin-connections.ts`).
 */
export async function startAdminListener(
  host: string,
  port: number,
  sources: AdminSources,
  connections = new AdminConnections<Socket>(),
): Promise<AdminListener> {
  // Node's own timeouts stay as a backstop; the connections' rules close sooner.
  const timeouts = { headersTimeout: ADMIN_ANSWER_MS, requestTimeout: ADMIN_ANSWER_MS, keepAliveTimeout: ADMIN_KEEP_ALIVE_MS };
  const server = createServer(timeouts, (req, res) => {
    answer(req, res, sources).catch((err: unknown) => {
      // A page that cannot be built is the operator's to see, on the probe itself.
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `${err instanceof Error ? err.message : String(err)}\n`);
      else res.destroy();
    });
  });
  watchConnections(server, connections);
  try {
    await listen(server, host, port);
  } catch (err) {
    throw err instanceof Error ? new Error(err.message.replace(/^PORT /, 'ADMIN_PORT ').replace(/^HOST /, 'ADMIN_HOST ')) : err;
  }
  const { address, port: bound } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    server,
    url: `http://${shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Tells `connections` of each connection, each request and each answer's end on `server`. */
function watchConnections(server: Server, connections: AdminConnections<Socket>): void {
  server.on('connection', (socket: Socket) => {
    if (connections.admit(socket)) socket.once('close', () => connections.closed(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    connections.requestStarted(socket);
    res.once('close', () => connections.requestEnded(socket));
  });
}

async function answer(req: IncomingMessage, res: ServerResponse, sources: AdminSources): Promise<void> {
  const path = (req.url ?? '/').split('?', 1)[0];
  if (!(ADMIN_PATHS as readonly (string | undefined)[]).includes(path)) {
    return send(res, 404, 'text/plain; charset=utf-8', `Not found; this listener serves ${ADMIN_PATHS.join(', ')}\n`);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, 'text/plain; charset=utf-8', `Method ${req.method} not allowed; use GET or HEAD\n`, ['allow', ALLOW]);
  }
  if (path === '/healthz') return send(res, 200, 'application/json', '{"status":"alive"}\n');
  if (path === '/readyz') {
    const report = await sources.readiness();
    return send(res, report.ready ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`);
  }
  return send(res, 200, sources.metricsContentType, await sources.metricsPage());
}

function send(res: ServerResponse, status: number, type: string, body: string, extra: string[] = []): void {
  res.writeHead(status, ['content-type', type, 'cache-control', 'no-store', 'content-length', String(Buffer.byteLength(body)), ...extra]);
  res.end(body);
}

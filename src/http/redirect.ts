/**
 * REDIRECT_PORT (docs/deployment.md, "HTTPS without a proxy"): a plain-HTTP listener that answers every
 * request with 308 to the same target on `https://`, and serves nothing else, as the shipped
 * nginx site's port-80 server does. 308 keeps the method and body (RFC 9110 15.4.9): a POST
 * sent to http:// is sent again, as a POST, to https://.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HostMatcher, isValidHost } from '../config/index.js';
import { createServer } from '../util/node-http.js';
import { type ConnectionTimeouts, timeoutOptions } from './connections.js';
import { hostnameOf } from './hosts.js';
import { listen } from './listen.js';

/** Where a redirect points. */
export interface RedirectTarget {
  /** The HTTPS listener's port: written in the Location unless it is 443. */
  readonly httpsPort: number;
  /** BASE_URL, when set: the Location is it and the target, whatever Host the client sent. */
  readonly baseUrl: string | undefined;
  /** TRUSTED_HOSTS, when set: another Host is a 400, never a redirect. */
  readonly trustedHosts: HostMatcher | undefined;
}

/** Hosts longer than this are refused, as the service refuses them (docs/http.md, "Limits"). */
const MAX_HOST_LENGTH = 255;

/**
 * The Location for `req`, or undefined when its Host cannot be redirected to (missing, not a
 * host, not trusted) or its target is not a path.
 */
export function redirectLocation(req: Pick<IncomingMessage, 'url' | 'headers'>, target: RedirectTarget): string | undefined {
  const path = req.url ?? '';
  if (!path.startsWith('/')) return undefined;
  if (target.baseUrl !== undefined) return `${target.baseUrl}${path}`;
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || host.length > MAX_HOST_LENGTH || !isValidHost(host)) return undefined;
  const name = hostnameOf(host);
  if (target.trustedHosts !== undefined && !target.trustedHosts(name)) return undefined;
  return `https://${name}${target.httpsPort === 443 ? '' : `:${target.httpsPort}`}${path}`;
}

/** Answers one request: a 308, or a 400 when there is nowhere to send it. */
function answer(req: IncomingMessage, res: ServerResponse, target: RedirectTarget): void {
  // The body is never read: a request that announces one closes its connection after the answer.
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) res.shouldKeepAlive = false;
  const location = redirectLocation(req, target);
  if (location === undefined) {
    const body = 'This listener only redirects to HTTPS, and the request has no Host it can redirect to.\n';
    res.writeHead(400, ['content-type', 'text/plain; charset=utf-8', 'content-length', String(Buffer.byteLength(body))]);
    res.end(body);
    return;
  }
  res.writeHead(308, ['location', location, 'content-length', '0']);
  res.end();
}

/** The redirect listener, listening; a failure to listen names REDIRECT_PORT. */
export async function startRedirectListener(
  host: string, port: number, target: RedirectTarget, timeouts: ConnectionTimeouts,
): Promise<{ readonly server: Server; readonly url: string }> {
  const server = createServer({ ...timeoutOptions(timeouts), requireHostHeader: false }, (req, res) => answer(req, res, target));
  try {
    await listen(server, host, port);
  } catch (err) {
    throw err instanceof Error ? new Error(err.message.replace(/^PORT /, 'REDIRECT_PORT ')) : err;
  }
  const { address, port: bound } = server.address() as AddressInfo;
  return { server, url: `http://${address.includes(':') ? `[${address}]` : address}:${bound}` };
}

/**
 * One request's context: the raw path and query, the effective method (X-HTTP-Method
 * tunneling), the `rest.*` attributes, client IP and scheme after trusted proxies, the
 * validated Host and the base URL for generated links.
 */
import type { IncomingMessage } from 'node:http';
import type { Config, Namespace } from './config.js';
import { hostnameOf, isValidHost } from './hosts.js';
import { InvalidHost, InvalidMethodOverride, UntrustedHost, type Problem } from './problem.js';
import { isTrustedPeer, resolveClientIp, unmapV4 } from './proxies.js';
import { splitPath } from './router.js';

export const TUNNELING_HEADER = 'X-HTTP-Method';

export interface RequestAttributes {
  'rest.tunneling.header': string;
  'rest.tunneling.original_method': string;
  'rest.service.zone': boolean;
  /** The controller id that answered, once known. */
  _controller?: string;
}

export interface RequestContext {
  /** The method routing uses: the tunneled one for a POST with X-HTTP-Method. */
  readonly method: string;
  /** The method as sent. */
  readonly originalMethod: string;
  /** The request target as sent (`/a%20b?x=1`, `http://h/x`, `*`). */
  readonly target: string;
  /** The target's path exactly as sent, without query or fragment (`*` for `OPTIONS *`). */
  readonly rawPath: string;
  /** Percent-decoded path segments; undefined when the path cannot match anything. */
  readonly segments: readonly string[] | undefined;
  readonly query: string;
  readonly clientIp: string;
  readonly scheme: 'http' | 'https';
  /** `https://api.example.com`: from BASE_URL, else the scheme and a valid, trusted Host. */
  readonly baseUrl: string;
  readonly referer: string | undefined;
  readonly accept: string | undefined;
  readonly attributes: RequestAttributes;
  /** A problem found before routing (bad override, bad or untrusted Host). */
  readonly rejection: Problem | undefined;
  /** When the request arrived (ms since the epoch). */
  readonly receivedAt: number;
}

/** Splits a request target into its raw path and query; an absolute-form target keeps its path. */
export function parseTarget(target: string): { rawPath: string; query: string } {
  let rest = target;
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  if (absolute) rest = target.slice(absolute[0].length) || '/';
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  if (question < 0) return { rawPath: rest, query: '' };
  return { rawPath: rest.slice(0, question), query: rest.slice(question + 1) };
}

/**
 * The method routing uses. Only a POST tunnels; an empty header is ignored; anything but
 * letters is a 400.
 */
export function effectiveMethod(original: string, override: string | undefined): string | InvalidMethodOverride {
  if (original !== 'POST' || override === undefined || override === '') return original;
  return /^[A-Za-z]+$/.test(override) ? override.toUpperCase() : new InvalidMethodOverride();
}

/** Whether decoded `segments` (or the raw path) lie under a namespace's path prefix. */
export function isUnder(namespace: Namespace, rawPath: string, segments: readonly string[] | undefined): boolean {
  if (segments === undefined) return rawPath.startsWith(namespace.path);
  const parts = prefixSegments(namespace);
  if (segments.length <= parts.length) return parts.length === 0;
  for (let i = 0; i < parts.length; i++) if (segments[i] !== parts[i]) return false;
  return true;
}

const prefixes = new WeakMap<Namespace, readonly string[]>();

/** `/api/v1/` -> `['api', 'v1']`, computed once per namespace. */
function prefixSegments(namespace: Namespace): readonly string[] {
  let parts = prefixes.get(namespace);
  if (parts === undefined) {
    const prefix = namespace.path.slice(1, -1);
    parts = prefix === '' ? [] : prefix.split('/');
    prefixes.set(namespace, parts);
  }
  return parts;
}

/** The absolute URL of a namespace: its own origin, or the request's base URL. */
export function namespaceUrl(namespace: Namespace, baseUrl: string): string {
  return (namespace.origin ?? baseUrl) + namespace.path;
}

/** Builds the context of a request; never throws: problems land in `rejection`. */
export function resolveRequest(req: IncomingMessage, config: Config, receivedAt: number): RequestContext {
  const target = req.url ?? '/';
  const { rawPath, query } = parseTarget(target);
  const segments = splitPath(rawPath);
  const originalMethod = req.method ?? 'GET';
  const methodOrProblem = effectiveMethod(originalMethod, header(req, 'x-http-method'));
  const method = typeof methodOrProblem === 'string' ? methodOrProblem : originalMethod;

  const peer = unmapV4(req.socket.remoteAddress ?? '');
  const trusted = isTrustedPeer(config.trustedProxies, peer);
  const clientIp = resolveClientIp(config.trustedProxies, peer, header(req, 'x-forwarded-for'));
  const forwardedProto = trusted ? header(req, 'x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() : undefined;
  const scheme = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : 'http';

  const hostHeader = header(req, 'host')?.toLowerCase();
  const hostProblem = checkHost(hostHeader, config);
  const host = hostProblem === undefined && hostHeader !== undefined ? hostHeader : localHost(req);
  const rejection = typeof methodOrProblem === 'string' ? hostProblem : methodOrProblem;

  return {
    method,
    originalMethod,
    target,
    rawPath,
    segments,
    query,
    clientIp,
    scheme,
    baseUrl: config.baseUrl ?? `${scheme}://${host}`,
    referer: header(req, 'referer'),
    accept: header(req, 'accept'),
    attributes: {
      'rest.tunneling.header': TUNNELING_HEADER,
      'rest.tunneling.original_method': originalMethod,
      // Known only once a route matched (SPEC 2): unmatched requests are never in the zone.
      'rest.service.zone': false,
    },
    rejection,
    receivedAt,
  };
}

function checkHost(host: string | undefined, config: Config): Problem | undefined {
  if (host === undefined) return undefined;
  if (!isValidHost(host)) return new InvalidHost(host);
  if (config.trustedHosts && !config.trustedHosts(hostnameOf(host))) return new UntrustedHost(host);
  return undefined;
}

/** The address the client reached, for links when the Host header cannot be used. */
function localHost(req: IncomingMessage): string {
  const address = unmapV4(req.socket.localAddress ?? '127.0.0.1');
  const port = req.socket.localPort;
  const name = address.includes(':') ? `[${address}]` : address;
  return port === undefined ? name : `${name}:${port}`;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

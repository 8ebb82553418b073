/**
 * One request's context: the raw path and query, the effective method (X-HTTP-Method
 * tunneling), the `rest.*` attributes, client IP and scheme after trusted proxies, the
 * validated Host and the base URL for generated links.
 */
import type { IncomingMessage } from 'node:http';
import { type Config, type Namespace, isValidHost } from '../config/index.js';
import { hostnameOf } from './hosts.js';
import { headerText } from './header-value.js';
import { failed, succeeded, type Result } from '../util/result.js';
import { type Problem, splitPath } from '../core/index.js';
import {
  HostCount,
  InvalidHost,
  InvalidMethodOverride,
  InvalidRequestTarget,
  UnsupportedHttpVersion,
  UnsupportedTransferCoding,
  UntrustedHost,
} from './problems.js';
import { isTrustedPeer, resolveClientIp, unmapV4 } from './proxies.js';
import { requestIdOf } from './request-id.js';
import { decodeUtf8 } from '../util/header-bytes.js';

export const TUNNELING_HEADER = 'X-HTTP-Method';

export interface RequestAttributes {
  'rest.tunneling.header': string;
  'rest.tunneling.original_method': string;
  'rest.service.zone': boolean;
  /** The verified token's subject (`sub`, else `username`), once a protected route checked it. */
  'security.subject'?: string;
}

export interface RequestContext {
  /** `X-Request-Id`: a trusted proxy's valid one, else generated; echoed on the answer. */
  readonly requestId: string;
  /** The method routing uses: the tunneled one for a POST with X-HTTP-Method. */
  readonly method: string;
  /** The method as sent. */
  readonly originalMethod: string;
  /** The request target as sent, read as UTF-8 (`/a%20b?x=1`, `http://h/x`, `*`). */
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
  /** A problem found before routing (framing, target, Host, method override). */
  readonly rejection: Problem | undefined;
  /** When the request arrived (ms since the epoch). */
  readonly receivedAt: number;
}

/** A request target split into its parts (RFC 9112 3.2). */
export interface ParsedTarget {
  /** The path exactly as sent, without query or fragment; `/` for an absolute form without one. */
  readonly rawPath: string;
  readonly query: string;
  /** The authority of an absolute-form target (`http://h:8080/x` -> `h:8080`): it is the host. */
  readonly authority: string | undefined;
  /** False for a target of none of the forms: origin (`/x`), absolute (`http://h/x`), `*`. */
  readonly valid: boolean;
}

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** Splits a request target into its raw path, query and (absolute form) authority. */
export function parseTarget(target: string): ParsedTarget {
  let rest = target;
  let authority: string | undefined;
  // Most targets are origin-form (`/x`): only another first character can start a scheme.
  const scheme = target.charCodeAt(0) === 0x2f ? null : ABSOLUTE_FORM.exec(target);
  if (scheme) {
    const start = scheme[0].length;
    let end = start;
    while (end < target.length && !'/?#'.includes(target[end]!)) end++;
    authority = target.slice(start, end);
    rest = target.slice(end);
    // `http://h?x=1`: the path of an absolute form without one is `/` (RFC 9112 3.2.2).
    if (!rest.startsWith('/')) rest = `/${rest}`;
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  const rawPath = question < 0 ? rest : rest.slice(0, question);
  const query = question < 0 ? '' : rest.slice(question + 1);
  return { rawPath, query, authority, valid: rawPath.startsWith('/') || rawPath === '*' };
}

/** The original service shows header and target bytes as UTF-8 (see util/header-bytes.ts). */
export { decodeUtf8 };

/**
 * The method routing uses. Only a POST tunnels; an empty header is ignored; anything but
 * letters is a 400.
 */
export function effectiveMethod(original: string, override: string | undefined): Result<string, InvalidMethodOverride> {
  if (original !== 'POST' || override === undefined || override === '') return succeeded(original);
  return /^[A-Za-z]+$/.test(override) ? succeeded(override.toUpperCase()) : failed(new InvalidMethodOverride());
}

/**
 * The test whether decoded `segments` (or the raw path, when they cannot be decoded) lie under a
 * namespace's path prefix; the prefix is split once, here, not per request.
 */
export function underNamespace(namespace: Namespace): (rawPath: string, segments: readonly string[] | undefined) => boolean {
  const prefix = namespace.path.slice(1, -1);
  const parts = prefix === '' ? [] : prefix.split('/');
  return (rawPath, segments) => {
    if (segments === undefined) return rawPath.startsWith(namespace.path);
    if (segments.length <= parts.length) return parts.length === 0;
    for (let i = 0; i < parts.length; i++) if (segments[i] !== parts[i]) return false;
    return true;
  };
}

/** The absolute URL of a namespace: its own origin, or the request's base URL. */
export function namespaceUrl(namespace: Namespace, baseUrl: string): string {
  return (namespace.origin ?? baseUrl) + namespace.path;
}

/** Host header values longer than a DNS name and a port can be are refused before any matching. */
export const MAX_HOST_LENGTH = 255;

/**
 * Builds the context of a request; never throws: problems land in `rejection`. `newRequestId`
 * makes the request's id when no trusted proxy gave one.
 */
export function resolveRequest(
  req: IncomingMessage, config: Config, receivedAt: number, newRequestId: () => string,
): RequestContext {
  const headers = req.headers;
  const target = decodeUtf8(req.url ?? '/');
  const { rawPath, query, authority, valid } = parseTarget(target);
  const segments = splitPath(rawPath);
  const originalMethod = req.method ?? 'GET';
  // Only a POST tunnels: any other method is routed as sent.
  const tunnelled = originalMethod === 'POST' ? effectiveMethod(originalMethod, headerText(headers['x-http-method'])) : undefined;
  const method = tunnelled?.ok ? tunnelled.value : originalMethod;

  const peer = unmapV4(req.socket.remoteAddress ?? '');
  const trusted = isTrustedPeer(config.trustedProxies, peer);
  const clientIp = resolveClientIp(config.trustedProxies, peer, headerText(headers['x-forwarded-for']));
  const direct = (req.socket as { readonly encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  const scheme = trusted ? forwardedScheme(headerText(headers['x-forwarded-proto']), direct) : direct;

  const { host, hostProblem } = resolveHost(req, authority, config);
  const baseUrl = config.baseUrl ?? `${scheme}://${host}`;
  const rejection =
    framingProblem(req) ??
    (valid ? undefined : new InvalidRequestTarget(target)) ??
    hostProblem ??
    (tunnelled === undefined || tunnelled.ok ? undefined : tunnelled.problem);

  const referer = headerText(headers.referer);
  return {
    requestId: requestIdOf(headerText(headers['x-request-id']), trusted, newRequestId),
    method,
    originalMethod,
    target,
    rawPath,
    segments,
    query,
    clientIp,
    scheme,
    baseUrl,
    referer: referer === undefined ? undefined : decodeUtf8(referer),
    accept: headerText(headers.accept),
    attributes: initialAttributes(originalMethod),
    rejection,
    receivedAt,
  };
}

/**
 * The host the request names, lower-cased, and the problem with it if any (then the listener's
 * own address stands in). For an absolute-form target its authority is the host, whatever Host
 * says (RFC 9112 3.2.2).
 */
function resolveHost(req: IncomingMessage, authority: string | undefined, config: Config): { host: string; hostProblem: Problem | undefined } {
  // An HTTP/2 client names the host in `:authority` (RFC 9113 8.3.1), Host being optional there.
  const hostValue = authority ?? req.headers.host ?? headerText(req.headers[':authority']);
  const hostName = hostValue?.toLowerCase();
  const hostProblem = hostCountProblem(req) ?? checkHostName(hostValue, hostName, config);
  return { host: hostProblem === undefined && hostName ? hostName : localHost(req), hostProblem };
}

/** The `rest.*` attributes a request starts with. */
function initialAttributes(originalMethod: string): RequestContext['attributes'] {
  return {
    'rest.tunneling.header': TUNNELING_HEADER,
    'rest.tunneling.original_method': originalMethod,
    // Known only once a route matched (docs/http.md, "Routing and errors"): unmatched requests are never in the zone.
    'rest.service.zone': false,
  };
}

/**
 * The scheme a trusted proxy says the client used (the first of its `X-Forwarded-Proto` list),
 * else the scheme of the connection it came on.
 */
function forwardedScheme(value: string | undefined, direct: 'http' | 'https'): 'http' | 'https' {
  if (value === undefined) return direct;
  const proto = value.split(',')[0]?.trim().toLowerCase();
  return proto === 'https' ? 'https' : 'http';
}

/**
 * A request this edge cannot frame: neither HTTP/1.x nor a stream of an HTTP/2 connection, or a
 * body in a coding other than chunked.
 */
function framingProblem(req: IncomingMessage): Problem | undefined {
  if (req.httpVersionMajor !== 1 && !isHttp2Stream(req)) return new UnsupportedHttpVersion(req.httpVersion);
  return transferCodingProblem(req.headers['transfer-encoding']);
}

/** Whether the request came on an HTTP/2 connection (`node:http2`'s request has its stream). */
function isHttp2Stream(req: IncomingMessage): boolean {
  return (req as { readonly stream?: object }).stream !== undefined;
}

/** Only chunked is understood; any other coding leaves the body's end unknown: 501, then close. */
function transferCodingProblem(value: string | undefined): Problem | undefined {
  if (value === undefined || value.trim().toLowerCase() === 'chunked') return undefined;
  return new UnsupportedTransferCoding(decodeUtf8(value));
}

/** An HTTP/1.1 request has exactly one Host (RFC 9112 3.2). */
function hostCountProblem(req: IncomingMessage): Problem | undefined {
  const count = countHostHeaders(req.rawHeaders);
  if (count > 1 || (count === 0 && req.httpVersionMinor >= 1 && req.httpVersionMajor === 1)) return new HostCount(count);
  return undefined;
}

/** The Host must be a host, and trusted. `name` is `host` lower-cased. */
function checkHostName(host: string | undefined, name: string | undefined, config: Config): Problem | undefined {
  if (host === undefined || name === undefined) return undefined;
  if (name.length > MAX_HOST_LENGTH || !isValidHost(name)) return new InvalidHost(decodeUtf8(host));
  if (config.trustedHosts && !config.trustedHosts(hostnameOf(name))) return new UntrustedHost(name);
  return undefined;
}

function countHostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** The address the client reached, for links when the Host header cannot be used. */
function localHost(req: IncomingMessage): string {
  const address = unmapV4(req.socket.localAddress ?? '127.0.0.1');
  const port = req.socket.localPort;
  const name = address.includes(':') ? `[${address}]` : address;
  return port === undefined ? name : `${name}:${port}`;
}

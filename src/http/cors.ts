/**
 * CORS (Fetch standard, "CORS protocol") for the service API: `CORS_ORIGINS` names the origins
 * whose browser apps may call it, or `*` for any; empty, the default, turns CORS off.
 *
 * The API takes a bearer token in `Authorization`, never a cookie, so no answer carries
 * `Access-Control-Allow-Credentials`: a browser sends no credentials of its own, and `*` is safe.
 * An origin that is not listed gets no `Access-Control-*` header at all (its preflight is still
 * the route's 204 with `Allow`), so the browser refuses to hand the answer to its app.
 */
import { unreachable } from '../util/unreachable.js';
import type { HeaderList } from './response.js';

export type CorsOrigins =
  | { readonly kind: 'off' }
  | { readonly kind: 'any' }
  /** Serialized origins (`https://app.example.com`, RFC 6454 6.1), compared as the browser sends them. */
  | { readonly kind: 'listed'; readonly origins: readonly string[] };

/** Origins `CORS_ORIGINS` may list: a request's Origin is compared with each. */
export const MAX_CORS_ORIGINS = 100;

/** How long a browser may reuse a preflight's answer (Chromium caps it at 7,200 s). */
export const CORS_PREFLIGHT_MAX_AGE_SECONDS = 600;

/** What a preflight may ask for: the token and the JSON body (neither is CORS-safelisted). */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type';

/** Answer headers a browser app may read besides the safelisted ones (Content-Type, Cache-Control…). */
export const CORS_EXPOSED_HEADERS = 'Location, Link, Retry-After, WWW-Authenticate';

const OFF: Readonly<CorsOrigins> = { kind: 'off' };

/**
 * Parses `CORS_ORIGINS`: empty for off, `*`, or comma-separated http(s) origins (scheme, host and
 * an optional port; a trailing `/` and upper case are normalised as the browser would send them).
 * A bad value throws an Error whose message says what is wrong.
 */
export function parseCorsOrigins(value: string | undefined): CorsOrigins {
  if (value === undefined || value.trim() === '') return OFF;
  const items = value.split(',').map((item) => item.trim());
  if (items.length === 1 && items[0] === '*') return { kind: 'any' };
  if (items.includes('*')) throw new Error('"*" allows every origin and must stand alone');
  if (items.length > MAX_CORS_ORIGINS) throw new Error(`lists ${items.length} origins, more than ${MAX_CORS_ORIGINS}`);
  const origins: string[] = [];
  for (const item of items) {
    const origin = serializedOrigin(item);
    if (origin === undefined) throw new Error(`${JSON.stringify(item)} is not an origin such as https://app.example.com (scheme, host, optional port; no path)`);
    if (!origins.includes(origin)) origins.push(origin);
  }
  return { kind: 'listed', origins };
}

/** `https://App.example.com/` -> `https://app.example.com`; undefined for anything but an http(s) origin. */
function serializedOrigin(text: string): string | undefined {
  if (!text.startsWith('http://') && !text.startsWith('https://')) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const bare = url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  // `https://a.com/` is fine; `https://a.com?` or `https://a.com#` are not origins.
  return bare && !text.endsWith('?') && !text.endsWith('#') ? url.origin : undefined;
}

/**
 * Headers of every answer of a CORS-enabled route to a request with `origin` (its Origin header,
 * compared as sent: a repeated header arrives joined and matches nothing). With a list, the
 * answer depends on Origin, so it always carries `Vary: Origin` (RFC 9110 12.5.5).
 */
export function corsAnswerHeaders(allowed: CorsOrigins, origin: string | undefined): HeaderList {
  switch (allowed.kind) {
    case 'off':
      return [];
    case 'any':
      return ['access-control-allow-origin', '*', 'access-control-expose-headers', CORS_EXPOSED_HEADERS];
    case 'listed':
      return origin !== undefined && allowed.origins.includes(origin)
        ? ['vary', 'Origin', 'access-control-allow-origin', origin, 'access-control-expose-headers', CORS_EXPOSED_HEADERS]
        : ['vary', 'Origin'];
    default:
      return unreachable(allowed);
  }
}

/**
 * Headers of a preflight's answer (an OPTIONS with Origin and Access-Control-Request-Method):
 * those of any answer and, for an allowed origin, what it may send and for how long it may
 * remember. The methods and headers are the same whatever was asked: the browser compares.
 */
export function corsPreflightHeaders(allowed: CorsOrigins, origin: string | undefined, methods: string): HeaderList {
  const headers = corsAnswerHeaders(allowed, origin);
  if (!headers.includes('access-control-allow-origin')) return headers;
  headers.push(
    'access-control-allow-methods', methods,
    'access-control-allow-headers', CORS_ALLOWED_HEADERS,
    'access-control-max-age', String(CORS_PREFLIGHT_MAX_AGE_SECONDS),
  );
  return headers;
}

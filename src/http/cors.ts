/**
 * CORS (Fetch standard, "CORS protocol") for the service API: `CORS_ORIGINS` names the origins
 * whose browser apps may call it, or `*` for any; empty, the default, turns CORS off.
 *
 * The API takes a bearer token in `Authorization`, never a cookie, so no answer carries
 * `Access-Control-Allow-Credentials`: a browser sends no credentials of its own, and `*` is safe.
 * An origin that is not listed gets no `Access-Control-*` header at all (its preflight is still
 * the route's 204 with `Allow`), so the browser refuses to hand the answer to its app.
 */
import type { CorsOrigins } from '../config/index.js';
import { unreachable } from '../util/unreachable.js';
import type { HeaderList } from './response.js';

/** How long a browser may reuse a preflight's answer (Chromium caps it at 7,200 s). */
export const CORS_PREFLIGHT_MAX_AGE_SECONDS = 600;

/** What a preflight may ask for: the token and the JSON body (neither is CORS-safelisted). */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type';

/** Answer headers a browser app may read besides the safelisted ones (Content-Type, Cache-Control…). */
export const CORS_EXPOSED_HEADERS = 'Location, Link, Retry-After, WWW-Authenticate';

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

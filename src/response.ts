/**
 * Writing whole responses: one place that sets Content-Length and the body.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { formatOncePerSecond } from './once-per-second.js';

/**
 * Sends a complete response. A response with `Expires` gets its `Date` from the same instant, so
 * the two always agree; others get Node's own Date header. Node drops the body itself when the
 * request was HEAD. `headers` is taken over (Content-Length is added to it): pass a fresh object.
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string | Uint8Array,
  now: number,
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (headers.expires !== undefined) headers.date = httpDate(now);
  // 204 and 304 carry no body and no Content-Length (RFC 9110 8.6).
  if (status !== 204 && status !== 304) headers['content-length'] = length;
  res.writeHead(status, headers);
  res.end(status === 204 || status === 304 ? undefined : body);
}

/** An HTTP-date formatter (`Sun, 22 Nov 2026 02:00:00 GMT`) that formats once per second. */
export function createHttpDateFormatter(): (instant: number) => string {
  return formatOncePerSecond((secondStart) => new Date(secondStart).toUTCString());
}

/** The Date header's value for an instant. */
export const httpDate = createHttpDateFormatter();

/**
 * Writing whole responses: one place that sets Date, Content-Length and the body.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Sends a complete response. `Date` comes from the same instant as any `Expires` computed for
 * the response, so the two always agree. Node drops the body itself when the request was HEAD.
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  body: string | Uint8Array,
  now: number,
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  const all: OutgoingHttpHeaders = { ...headers, date: new Date(now).toUTCString() };
  // 204 and 304 carry no body and no Content-Length (RFC 9110 8.6).
  if (status !== 204 && status !== 304) all['content-length'] = length;
  res.writeHead(status, all);
  res.end(status === 204 || status === 304 ? undefined : body);
}

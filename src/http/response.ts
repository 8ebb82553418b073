/**
 * Writing responses: one place that sets Content-Length and the body, and the one rule that
 * frames a response for the method on the wire rather than the routed one.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { formatOncePerSecond } from '../util/once-per-second.js';
import { applyClosingRules } from './early-close.js';
import { formatHttpDate } from './http-date.js';

/**
 * Marks a response to a HEAD tunnelled through a POST: its head is all that is sent. A property
 * rather than a WeakSet: looking a fresh response up in a WeakSet gives it an identity hash on
 * every request, while reading an absent property is one inline-cached load.
 */
const HEADERS_ONLY = Symbol('headersOnly');

/** `_sent100` is Node's own mark of a response whose 100 Continue was written or queued. */
type MarkedResponse = ServerResponse & { [HEADERS_ONLY]?: true; _sent100?: boolean };

/**
 * Frames a response for the method on the wire (SPEC 13); called once per request, before
 * anything is written. Routing follows the tunnelled method, but a client that sent POST reads
 * a body of Content-Length bytes after the head, so a tunnelled HEAD is answered with the HEAD's
 * headers, `Content-Length: 0` and no body. A HEAD on the wire is Node's to frame: it keeps
 * Content-Length and drops the body.
 */
export function frameForWireMethod(res: ServerResponse, routedMethod: string, wireMethod: string): void {
  if (routedMethod === 'HEAD' && wireMethod !== 'HEAD') (res as MarkedResponse)[HEADERS_ONLY] = true;
}

/**
 * Writes the status line and headers, framed for the wire and closing the connection after
 * when the server's rules say so; returns whether body bytes may follow. Every head the service
 * writes goes through here. A headers-only response gets `Content-Length: 0` (204 and 304 carry
 * none at all).
 */
export function writeFramedHead(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders | Readonly<Record<string, string | number>>,
): boolean {
  applyClosingRules(res);
  const withBody = (res as MarkedResponse)[HEADERS_ONLY] !== true;
  res.writeHead(status, withBody || hasNoContent(status) ? headers : { ...headers, 'content-length': 0 });
  // A pipelined request's 100 Continue waits in its response's queue until the answers before
  // it are out, and Node puts the head of a response whose first body chunk is a Buffer in
  // front of that queue: the 100 would land between head and body. The head alone keeps order.
  if ((res as MarkedResponse)._sent100 === true) res.flushHeaders();
  return withBody;
}

/** 204 and 304 carry no body and no Content-Length (RFC 9110 8.6). */
function hasNoContent(status: number): boolean {
  return status === 204 || status === 304;
}

/**
 * Sends a complete response. A response with `Expires` gets its `Date` from the same instant, so
 * the two always agree; others get Node's own Date header. Node drops the body itself when the
 * request was HEAD; a tunnelled HEAD is framed by `writeFramedHead`. `headers` is taken over
 * (Content-Length is added to it): pass a fresh object.
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
  if (!hasNoContent(status)) headers['content-length'] = length;
  const withBody = writeFramedHead(res, status, headers);
  res.end(withBody && !hasNoContent(status) ? body : undefined);
}

/** An HTTP-date formatter (`Sun, 22 Nov 2026 02:00:00 GMT`) that formats once per second. */
export function createHttpDateFormatter(): (instant: number) => string {
  return formatOncePerSecond(formatHttpDate);
}

/** The Date header's value for an instant. */
export const httpDate = createHttpDateFormatter();

/**
 * Writing responses: one place that sets Content-Length and the body, and the one rule that
 * frames a response for the method on the wire rather than the routed one.
 */
import type { ServerResponse } from 'node:http';
import { formatOncePerSecond } from '../util/once-per-second.js';
import { applyClosingRules } from './early-close.js';
import { formatHttpDate } from './http-date.js';

/**
 * Marks a response to a HEAD tunnelled through a POST: its head is all that is sent. A property
 * rather than a WeakSet: looking a fresh response up in a WeakSet gives it an identity hash on
 * every request, while reading an absent property is one inline-cached load.
 */
const HEADERS_ONLY = Symbol('headersOnly');

/** The request id every head of the response carries (`X-Request-Id`). */
const REQUEST_ID = Symbol('requestId');

/** The head written for a response with a body (none for HEAD, a tunnelled HEAD, 204, 304). */
const HEAD_WITH_BODY = Symbol('headWithBody');

/**
 * Headers every answer of a listener carries (`Strict-Transport-Security` over TLS): set once on
 * the listener's response class, read as one prototype load per head.
 */
const EVERY_ANSWER = Symbol('everyAnswer');

/** `_sent100` is Node's own mark of a response whose 100 Continue was written or queued. */
type MarkedResponse = ServerResponse & {
  [HEADERS_ONLY]?: true; [REQUEST_ID]?: string; [HEAD_WITH_BODY]?: Readonly<HeaderList>; readonly [EVERY_ANSWER]?: Readonly<HeaderList>; _sent100?: boolean;
};

/** Makes every head written for a response of `ResponseClass` end with `headers`. */
export function addToEveryAnswer<C extends { readonly prototype: object }>(ResponseClass: C, headers: Readonly<HeaderList>): C {
  Object.defineProperty(ResponseClass.prototype, EVERY_ANSWER, { value: Object.freeze([...headers]) });
  return ResponseClass;
}

/**
 * Frames a response for the method on the wire (docs/http.md, "Routing and errors"); called once per request, before
 * anything is written. Routing follows the tunnelled method, but a client that sent POST reads
 * a body of Content-Length bytes after the head, so a tunnelled HEAD is answered with the HEAD's
 * headers, `Content-Length: 0` and no body. A HEAD on the wire is Node's to frame: it keeps
 * Content-Length and drops the body.
 */
export function frameForWireMethod(res: ServerResponse, routedMethod: string, wireMethod: string): void {
  if (routedMethod === 'HEAD' && wireMethod !== 'HEAD') (res as MarkedResponse)[HEADERS_ONLY] = true;
}

/** Makes every head written for `res` carry `X-Request-Id: <id>`; called once, before any is written. */
export function echoRequestId(res: ServerResponse, requestId: string): void {
  (res as MarkedResponse)[REQUEST_ID] = requestId;
}

/**
 * A response head as Node's flat list, `[name, value, name, value, …]`, lower-case names: the one
 * form every head the service writes takes. Node writes a list as it comes; an object it walks
 * key by key (for-in, an own-property check and a megamorphic load each).
 */
export type HeaderList = string[];

/**
 * Writes the status line and headers, framed for the wire and closing the connection after
 * when the server's rules say so; returns whether body bytes may follow. Every head the service
 * writes goes through here. A headers-only response gets `Content-Length: 0` (204 and 304 carry
 * none at all).
 */
export function writeFramedHead(res: ServerResponse, status: number, headers: Readonly<HeaderList>): boolean {
  applyClosingRules(res);
  const withBody = (res as MarkedResponse)[HEADERS_ONLY] !== true;
  const framed = withBody || hasNoContent(status) ? headers : withZeroLength(headers);
  const requestId = (res as MarkedResponse)[REQUEST_ID];
  // Kept, not read: only the access log and the metrics ask for the length, after the answer.
  if (withBody && res.req.method !== 'HEAD') (res as MarkedResponse)[HEAD_WITH_BODY] = framed;
  // Node only reads the list it is given (its type asks for a mutable one).
  const always = (res as MarkedResponse)[EVERY_ANSWER];
  res.writeHead(status, (requestId === undefined && always === undefined ? framed : withExtras(framed, requestId, always)) as HeaderList);
  // A pipelined request's 100 Continue waits in its response's queue until the answers before
  // it are out, and Node puts the head of a response whose first body chunk is a Buffer in
  // front of that queue: the 100 would land between head and body. The head alone keeps order.
  if ((res as MarkedResponse)._sent100 === true) res.flushHeaders();
  return withBody;
}

/**
 * The body bytes of an answer whose head was written through `writeFramedHead`: what its
 * Content-Length announced, 0 for a head without a body (HEAD, 204, 304) or none written yet.
 */
export function answeredBodyBytes(res: ServerResponse): number {
  const headers = (res as MarkedResponse)[HEAD_WITH_BODY];
  if (headers === undefined) return 0;
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === 'content-length') return Number(headers[i + 1]);
  return 0;
}

/**
 * The head, then `X-Request-Id` and the listener's own headers, in a new list: copied and
 * pushed, not `concat`, which runs in C++ and costs more for a list this short.
 */
function withExtras(headers: Readonly<HeaderList>, requestId: string | undefined, always: Readonly<HeaderList> | undefined): HeaderList {
  const list = headers.slice();
  if (requestId !== undefined) list.push('x-request-id', requestId);
  if (always !== undefined) for (const item of always) list.push(item);
  return list;
}

/** The head with `Content-Length: 0` in place of any length it had. */
function withZeroLength(headers: Readonly<HeaderList>): HeaderList {
  const list: HeaderList = [];
  for (let i = 0; i < headers.length; i += 2) if (headers[i] !== 'content-length') list.push(headers[i]!, headers[i + 1]!);
  list.push('content-length', '0');
  return list;
}

/** 204 and 304 carry no body and no Content-Length (RFC 9110 8.6). */
function hasNoContent(status: number): boolean {
  return status === 204 || status === 304;
}

/**
 * Sends a complete response: `headers`, then Date and Content-Length, on a head of its own (the
 * caller's list is only read, so a constant list may be passed). A response with `Expires` gets
 * its `Date` from the same instant, so the two always agree; others get Node's own Date header.
 * Node drops the body itself when the request was HEAD; a tunnelled HEAD is framed by
 * `writeFramedHead`. `formatDate` writes that Date: a caller that answers many such responses
 * passes the per-second formatter it owns (`createHttpDateFormatter`).
 */
export function sendBody(
  res: ServerResponse, status: number, headers: Readonly<HeaderList>, body: string | Uint8Array, now: number,
  formatDate: (instant: number) => string = formatHttpDate,
): void {
  const head = headers.slice();
  if (hasName(headers, 'expires')) head.push('date', formatDate(now));
  if (!hasNoContent(status)) head.push('content-length', contentLengthOf(body));
  const withBody = writeFramedHead(res, status, head);
  res.end(withBody && !hasNoContent(status) ? body : undefined);
}

function contentLengthOf(body: string | Uint8Array): string {
  return String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
}

function hasName(headers: Readonly<HeaderList>, name: string): boolean {
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === name) return true;
  return false;
}

/**
 * An HTTP-date formatter (`Sun, 22 Nov 2026 02:00:00 GMT`) that formats once per second; its
 * owner (an app, a responder) keeps it.
 */
export function createHttpDateFormatter(): (instant: number) => string {
  return formatOncePerSecond(formatHttpDate);
}

/**
 * When an answer must close its connection (docs/http.md, "Limits"):
 * - an answer given before the body was needed (401, 404, 413, ...) while more than
 *   UNREAD_BODY_LIMIT of that body has not arrived yet: Node would read and discard all of it to
 *   keep the connection, so a client could make us read gigabytes for nothing;
 * - any answer while the server drains for a stop.
 * Both are decided at the moment the response head is written (`applyClosingRules`, called by
 * the one function that writes every head the service sends); a request without a body pays
 * a few property reads.
 */
import { IncomingMessage, ServerResponse } from '../util/node-http.js';

/** Unread body bytes Node may still drain to keep a connection open. */
export const UNREAD_BODY_LIMIT = 64 * 1024;

/** What is known of a request body when the answer's head is written. */
export interface BodyProgress {
  /** Whether the whole request, body included, has been received. */
  readonly complete: boolean;
  /** The request's Content-Length header, if any. */
  readonly contentLength: string | undefined;
  /** Whether the body is chunked (or in any other transfer coding). */
  readonly transferEncoded: boolean;
  /** Body bytes received so far. */
  readonly received: number;
}

/** Whether the connection must close after the answer because too much body is still to come. */
export function tooMuchUnread(body: BodyProgress): boolean {
  if (body.complete) return false;
  // A chunked body's size is unknown until its last chunk: draining it has no bound.
  if (body.transferEncoded) return true;
  const declared = Number(body.contentLength);
  return Number.isFinite(declared) && declared - body.received > UNREAD_BODY_LIMIT;
}

/** A request that counts the body bytes the parser has handed over. */
export class CountedRequest extends IncomingMessage {
  /**
   * Body bytes so far: 0 from the prototype until a first chunk comes, so a request without a
   * body (most of them) does not pay for defining the field (a class field costs every request).
   */
  declare bodyBytesReceived: number;

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk instanceof Uint8Array) this.bodyBytesReceived += chunk.byteLength;
    return super.push(chunk, encoding);
  }
}
CountedRequest.prototype.bodyBytesReceived = 0;

/** What the response class asks of the server. */
export interface ClosingPolicy {
  /** True once the server drains: every answer says `Connection: close`. */
  draining(): boolean;
}

/**
 * Marks a connection whose current request was answered before its body had all arrived: the
 * mark lives on the socket it describes. If such a client then closes its side mid-body, the
 * parser's end-of-stream error is no new request to answer: a 400 then would be a second answer
 * to the same request.
 */
const ANSWERED_BEFORE_BODY_END = Symbol('answeredBeforeBodyEnd');

type MarkedSocket = object & { [ANSWERED_BEFORE_BODY_END]?: boolean };

/** Whether the connection's current request was answered before its body had all arrived. */
export function wasAnsweredBeforeBodyEnd(socket: object): boolean {
  return (socket as MarkedSocket)[ANSWERED_BEFORE_BODY_END] === true;
}

/** Where a response finds the closing policy of its server: on its class's prototype. */
const CLOSING_POLICY = Symbol('closingPolicy');

type PolicedResponse = ServerResponse & { readonly [CLOSING_POLICY]?: ClosingPolicy };

/**
 * A response class that carries the server's closing policy. The policy sits on the prototype
 * rather than in an overridden `writeHead`: an override there took Node's own head writing off
 * its fast path on every request, a prototype property is one inline-cached load.
 */
export function createResponseClass(policy: ClosingPolicy): typeof ServerResponse<CountedRequest> {
  class ClosingResponse extends ServerResponse<CountedRequest> {}
  Object.defineProperty(ClosingResponse.prototype, CLOSING_POLICY, { value: policy });
  return ClosingResponse;
}

/**
 * Turns keep-alive off before a head is written when the connection must close; a response of a
 * server without a policy (tests that build their own) is left as it is.
 */
export function applyClosingRules(res: ServerResponse): void {
  const policy = (res as PolicedResponse)[CLOSING_POLICY];
  if (policy === undefined) return;
  const req = res.req as CountedRequest;
  const bodyToCome = !req.complete && hasBody(req);
  if (res.shouldKeepAlive && (policy.draining() || (bodyToCome && tooMuchUnread(progressOf(req))))) res.shouldKeepAlive = false;
  const socket: MarkedSocket | null = req.socket;
  if (bodyToCome && socket) {
    socket[ANSWERED_BEFORE_BODY_END] = true;
    req.once('end', () => (socket[ANSWERED_BEFORE_BODY_END] = false));
  }
}

/** Whether the request announces a body: a transfer coding, or a Content-Length other than 0. */
function hasBody(req: CountedRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function progressOf(req: CountedRequest): BodyProgress {
  return {
    complete: req.complete,
    contentLength: req.headers['content-length'],
    transferEncoded: req.headers['transfer-encoding'] !== undefined,
    received: req.bodyBytesReceived,
  };
}

/**
 * When an answer must close its connection (SPEC 12, 13):
 * - an answer given before the body was needed (401, 404, 413, ...) while more than
 *   UNREAD_BODY_LIMIT of that body has not arrived yet: Node would read and discard all of it to
 *   keep the connection, so a client could make us read gigabytes for nothing;
 * - any answer while the server drains for a stop.
 * Both are decided at the moment the response head is written, by the request and response
 * classes the server is created with; a request without a body pays one property check.
 */
import { IncomingMessage, ServerResponse } from 'node:http';

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
  bodyBytesReceived = 0;

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk instanceof Uint8Array) this.bodyBytesReceived += chunk.byteLength;
    return super.push(chunk, encoding);
  }
}

/** What the response class asks of the server. */
export interface ClosingPolicy {
  /** True once the server drains: every answer says `Connection: close`. */
  draining(): boolean;
}

/**
 * Connections whose current request was answered before its body had all arrived. If such a
 * client then closes its side mid-body, the parser's end-of-stream error is no new request to
 * answer: a 400 then would be a second answer to the same request.
 */
const answeredBeforeBodyEnd = new WeakSet<object>();

/** Whether the connection's current request was answered before its body had all arrived. */
export function wasAnsweredBeforeBodyEnd(socket: object): boolean {
  return answeredBeforeBodyEnd.has(socket);
}

/** A response class that turns keep-alive off before its head when the connection must close. */
export function createResponseClass(policy: ClosingPolicy): typeof ServerResponse<CountedRequest> {
  return class ClosingResponse extends ServerResponse<CountedRequest> {
    // Every way of sending a head (writeHead, the first write, end) goes through writeHead.
    override writeHead(statusCode: number, reason?: unknown, headers?: unknown): this {
      const req = this.req;
      // A request without a body (most of them) pays two property reads here, nothing more.
      const bodyToCome = !req.complete && hasBody(req);
      if (this.shouldKeepAlive && (policy.draining() || (bodyToCome && tooMuchUnread(progressOf(req))))) this.shouldKeepAlive = false;
      const socket = req.socket;
      if (bodyToCome && socket) {
        answeredBeforeBodyEnd.add(socket);
        req.once('end', () => answeredBeforeBodyEnd.delete(socket));
      }
      // Node reads (status, headers) and (status, reason, headers) alike from these three.
      return super.writeHead(statusCode, reason as never, headers as never);
    }
  };
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

/**
 * CONNECT requests (docs/http.md, "Limits"): Node hands them to a 'connect' listener with the bare socket and
 * closes the connection silently when there is none. The service opens no tunnels, so CONNECT is
 * answered through the app like any other method (405 on `/`, 404 elsewhere, 400 for an
 * authority-form target), logged like any other, and the connection is closed after the answer.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a CONNECT answer may take before its socket is dropped. */
export const CONNECT_ANSWER_TIMEOUT_MS = 10_000;

/** A 'connect' listener that answers through `listener` on a response of class `Response`. */
export function answerConnectWith<Req extends IncomingMessage>(
  listener: RequestListener,
  Response: new (req: Req) => ServerResponse<Req>,
  timeoutMs = CONNECT_ANSWER_TIMEOUT_MS,
): (req: Req, socket: Duplex) => void {
  const answer = (req: Req, socket: Socket) => {
    socket.setTimeout(timeoutMs, () => socket.destroy());
    const res = new Response(req);
    // Whatever follows the head on this connection is not HTTP we could parse: close after.
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.on('finish', () => {
      res.detachSocket(socket);
      socket.end();
      // A client that never closes its side must not keep the socket.
      socket.once('finish', () => socket.destroy());
    });
    listener(req, res as ServerResponse<Req> & { req: Req });
  };
  return (req, duplex) => {
    // Node's http server always hands over the net.Socket it accepted.
    const socket = duplex as Socket & { _httpMessage?: ServerResponse | null };
    // Node took its own listeners off the socket before handing it over.
    socket.on('error', () => socket.destroy());
    // A CONNECT pipelined behind another request: that answer goes first. Node detaches the
    // socket from a response when it finishes; 'close' comes after, on a later tick.
    const previous = socket._httpMessage;
    if (previous) {
      previous.once('close', () => {
        if (socket.destroyed || socket._httpMessage) socket.destroy();
        else answer(req, socket);
      });
      return;
    }
    answer(req, socket);
  };
}

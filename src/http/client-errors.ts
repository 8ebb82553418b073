/**
 * Requests Node's parser refuses (docs/http.md, "Routing and errors" and "Limits"): answered as Node would (a minimal response, then
 * the connection closes) and logged as `request.ERROR: Bad request from <ip>: <reason>`, at most
 * one line a second per reason. The reason is the parser's error code and its own short text,
 * never bytes from the request.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { wasAnsweredBeforeBodyEnd } from './early-close.js';
import type { ThrottledLog } from '../log/index.js';
import { unmapV4 } from './proxies.js';

/** Longest parser text kept in a log line. */
const MAX_REASON_TEXT = 80;

/** How long an answered bad connection may take to take its answer before it is dropped. */
const LINGER_MS = 5_000;

/** Errors that only mean the client went away: nothing to answer, nothing to log. */
const GONE: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** Status lines of the parser errors that are no plain 400. */
const STATUSES: Readonly<Record<string, readonly [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};
const BAD_REQUEST: readonly [number, string] = [400, 'Bad Request'];

/** The status of the answer to a parser error code (400 unless the code says otherwise). */
export function clientErrorStatus(code: string | undefined): readonly [number, string] {
  return (code !== undefined && STATUSES[code]) || BAD_REQUEST;
}

/** The whole response for a parser error code, with the request id when there is one. */
export function clientErrorResponse(code: string | undefined, requestId?: string): string {
  const [status, text] = clientErrorStatus(code);
  const id = requestId === undefined ? '' : `X-Request-Id: ${requestId}\r\n`;
  return `HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\n${id}Connection: close\r\n\r\n`;
}

/** `HPE_INVALID_HEADER_TOKEN (Invalid header token)`: the code and the parser's own words. */
export function clientErrorReason(err: Error & { code?: unknown; reason?: unknown }): string {
  const code = typeof err.code === 'string' ? err.code : 'unknown';
  const text = typeof err.reason === 'string' ? err.reason.slice(0, MAX_REASON_TEXT) : '';
  return text === '' ? code : `${code} (${text})`;
}

/**
 * Told of each refusal answered (not of a silent connection's timeout): returns the request id
 * the answer carries (the access log writes it too).
 */
export type RefusalListener = (peer: string | undefined, status: number) => string;

/** The server's 'clientError' listener. */
export function createClientErrorHandler(log: ThrottledLog, refused?: RefusalListener): (err: Error & { code?: string }, socket: Duplex) => void {
  return (err, duplex) => {
    const socket = duplex as Socket & { _httpMessage?: ServerResponse | null };
    const code = err.code;
    // A second error on a connection we already answered, or the client closing mid-body after
    // its request was answered: nothing more to say.
    if (
      code === undefined || GONE.has(code) || !socket.writable || socket.writableEnded ||
      (code === 'HPE_INVALID_EOF_STATE' && wasAnsweredBeforeBodyEnd(socket))
    ) {
      socket.destroy();
      return;
    }
    // A TLS error on an open connection (a client asking to renegotiate): no HTTP request to
    // answer, and an HTTP answer written into a TLS exchange would be one more protocol error.
    if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
      log.note(code, `TLS error from ${unmapV4(socket.remoteAddress ?? '-')}: ${code}`);
      socket.destroy();
      return;
    }
    // A silent socket (a browser's preconnect) timing out is no bad request.
    const quiet = code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0;
    if (!quiet) {
      const reason = clientErrorReason(err);
      log.note(code, `Bad request from ${unmapV4(socket.remoteAddress ?? '-')}: ${reason}`);
    }
    // Answering over a response already begun would corrupt it (Node makes the same check).
    if (socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = quiet ? undefined : refused?.(socket.remoteAddress, clientErrorStatus(code)[0]);
    socket.end(clientErrorResponse(code, requestId));
    socket.once('finish', () => socket.destroy());
    socket.setTimeout(LINGER_MS, () => socket.destroy());
  };
}

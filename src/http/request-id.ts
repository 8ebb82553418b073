/**
 * Request ids (`X-Request-Id`): one per request, echoed on its answer and written in its access
 * line, so an operator can follow one request from the balancer's log to ours. A trusted proxy's
 * id is kept when it is a plain token; any other client's, or a malformed one, is replaced.
 */
import { randomUUID } from 'node:crypto';

/** The longest id taken from a proxy: room for a UUID, a trace id and a prefix or two. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** Letters, digits, `.`, `_` and `-`: nothing that could split a log line or a header. */
const REQUEST_ID = /^[A-Za-z0-9._-]+$/;

/** Whether a proxy's `X-Request-Id` value may be kept as this request's id. */
export function isValidRequestId(value: string): boolean {
  return value.length > 0 && value.length <= MAX_REQUEST_ID_LENGTH && REQUEST_ID.test(value);
}

/** The request's id: the trusted proxy's when valid, else a new random UUID. */
export function requestIdOf(forwarded: string | undefined, fromTrustedPeer: boolean): string {
  return fromTrustedPeer && forwarded !== undefined && isValidRequestId(forwarded) ? forwarded : randomUUID();
}

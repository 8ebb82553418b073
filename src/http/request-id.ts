/**
 * Request ids (`X-Request-Id`): one per request, echoed on its answer and written in its access
 * line, so an operator can follow one request from the balancer's log to ours. A trusted proxy's
 * id is kept when it is a plain token; any other client's, or a malformed one, is replaced.
 *
 * Made ids are a random prefix drawn once per process and a count (`4f1c9a0b7e2d5c38-1`,
 * `…-2`): unique across processes and machines for any fleet (64 random bits a process), and
 * cheaper than a random UUID a request, which would also load node:crypto into every service.
 * They identify; they guard nothing (the profiler's tokens and the JWTs are the secrets).
 */
/** The longest id taken from a proxy: room for a UUID, a trace id and a prefix or two. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** Letters, digits, `.`, `_` and `-`: nothing that could split a log line or a header. */
const REQUEST_ID = /^[A-Za-z0-9._-]+$/;

/** Whether a proxy's `X-Request-Id` value may be kept as this request's id. */
export function isValidRequestId(value: string): boolean {
  return value.length > 0 && value.length <= MAX_REQUEST_ID_LENGTH && REQUEST_ID.test(value);
}

/** A source of new request ids for one process; `random` is Math.random but in tests. */
export function createRequestIdSource(random: () => number = Math.random): () => string {
  const word = () => Math.floor(random() * 2 ** 32).toString(16).padStart(8, '0');
  const prefix = `${word()}${word()}`;
  let count = 0;
  return () => `${prefix}-${(++count).toString(36)}`;
}

/** The request's id: the trusted proxy's when valid, else a new one. */
export function requestIdOf(forwarded: string | undefined, fromTrustedPeer: boolean, newId: () => string): string {
  return fromTrustedPeer && forwarded !== undefined && isValidRequestId(forwarded) ? forwarded : newId();
}

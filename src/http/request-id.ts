/**
 * Request ids (`X-Request-Id`): one per request, echoed on its answer and written in its access
 * line, so an operator can follow one request from the balancer's log to ours. A trusted proxy's
 * id is kept when it is a plain token; any other client's, or a malformed one, is replaced.
 *
 * Made ids are 128 random bits in 32 hex digits, as nginx's `$request_id`: unique across
 * processes and machines, and telling a client nothing of the others (a count, or a prefix per
 * process, would tell how many requests an instance served and how many instances there are).
 * Drawn from Math.random: a random UUID from node:crypto costs several times more per id and
 * loads the crypto module into every service. They identify; they guard nothing (the profiler's tokens and
 * the JWTs are the secrets).
 */
/** The longest id taken from a proxy: room for a UUID, a trace id and a prefix or two. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** Letters, digits, `.`, `_` and `-`: nothing that could split a log line or a header. */
const REQUEST_ID = /^[A-Za-z0-9._-]+$/;

/** Whether a proxy's `X-Request-Id` value may be kept as this request's id. */
export function isValidRequestId(value: string): boolean {
  return value.length > 0 && value.length <= MAX_REQUEST_ID_LENGTH && REQUEST_ID.test(value);
}

/** Ids made at once: one native hex encoding serves them all. */
const IDS_PER_BATCH = 64;

/** A source of new request ids; `random` is Math.random but in tests. */
export function createRequestIdSource(random: () => number = Math.random): () => string {
  // Ids are cut from one hex text made for IDS_PER_BATCH of them: a slice of the batch's text
  // costs far less than an id built of 16 table lookups joined one by one.
  const bytes = Buffer.alloc(IDS_PER_BATCH * 16);
  const words = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let batch = '';
  let next = IDS_PER_BATCH;
  return () => {
    if (next === IDS_PER_BATCH) {
      // Each draw gives 32 bits, written big-endian: its hex digits in the order it has them.
      for (let offset = 0; offset < bytes.byteLength; offset += 4) words.setUint32(offset, Math.floor(random() * 2 ** 32));
      batch = bytes.toString('hex');
      next = 0;
    }
    const start = next++ * 32;
    return batch.slice(start, start + 32);
  };
}

/** The request's id: the trusted proxy's when valid, else a new one. */
export function requestIdOf(forwarded: string | undefined, fromTrustedPeer: boolean, newId: () => string): string {
  return fromTrustedPeer && forwarded !== undefined && isValidRequestId(forwarded) ? forwarded : newId();
}

/**
 * How a conforming HTTP/1.1 server delimits the bytes a case writes (RFC 9112 6, 7): which
 * requests it must answer, and what it must do after them. This is the yardstick for "every
 * request gets an answer" and "no answer is missing or extra".
 */
import { METHODS } from 'node:http';

/** One request whose head the server received whole. */
export interface ModelRequest {
  /** The method on the wire (a tunnelled HEAD is still a POST here). */
  readonly method: string;
  /** The Transfer-Encoding value(s) sent, joined; undefined when there was none. */
  readonly transferEncoding: string | undefined;
  /** The method routing uses: a POST with `X-HTTP-Method: head` is routed as HEAD. */
  readonly routedMethod: string;
}

/**
 * What follows the last modelled request:
 * - `open`: nothing; the connection stays usable.
 * - `close`: the server must answer that request and close (a coding it cannot read,
 *   CONNECT, Connection: close, HTTP/1.0 without keep-alive).
 * - `refuse`: that request is malformed (request line, framing, size): the server may answer
 *   it (400, 431) or not, and must close.
 * - `stall`: the last request's body is incomplete; the server may answer early or wait.
 * - `partial`: an incomplete head follows; the server waits for the rest.
 * - `unsure`: something a strict parser may refuse or read otherwise (raw control bytes,
 *   a head near Node's size limit): answers are not counted past it.
 */
export type ModelEnd = 'open' | 'close' | 'refuse' | 'stall' | 'partial' | 'unsure';

export interface RequestModel {
  readonly requests: readonly ModelRequest[];
  readonly end: ModelEnd;
  /** Some Transfer-Encoding was sent after the modelled requests (answers there are unknown). */
  readonly codingsBeyond: boolean;
  /**
   * Best guesses at the methods of what follows the modelled requests, for reading answers a
   * lenient parser may still give there (a HEAD answer has no body).
   */
  readonly methodsBeyond: readonly string[];
  /** The same, as routing reads them (`X-HTTP-Method` on a POST). */
  readonly routedBeyond: readonly string[];
}

/** Node's parser knows these methods only; any other token is a 400 before the service runs. */
const KNOWN_METHODS = new Set(METHODS);
/** Node's default limit on a request head. */
const MAX_HEAD_BYTES = 16 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Reads `text` (latin1) as a server would delimit it. */
export function modelRequests(text: string): RequestModel {
  const { requests, end, stoppedAt } = delimit(text);
  const beyond = text.slice(stoppedAt);
  // The request the model stopped at is modelled already: its method is not guessed twice.
  const guessed = guessMethods(beyond).slice(end === 'open' ? 0 : 1);
  const methodsBeyond = guessed.map((g) => g.method);
  const routedBeyond = guessed.map((g) => g.routedMethod);
  return { requests, end, codingsBeyond: /\r\ntransfer-encoding:/i.test(beyond), methodsBeyond, routedBeyond };
}

/**
 * The methods of the requests in `text` as a lenient parser would read them: each head's
 * method, skipping the body its Content-Length or chunked coding announces (a body of letters
 * right before the next request line must not be read as part of that method).
 */
function guessMethods(text: string): { method: string; routedMethod: string }[] {
  const methods: { method: string; routedMethod: string }[] = [];
  let at = 0;
  while (at < text.length) {
    while (text.startsWith('\r\n', at)) at += 2;
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const head = text.slice(at, headEnd);
    const line = /^([A-Za-z]+) \S+ HTTP\/1\.\d(?:\r\n|$)/.exec(head);
    if (line === null) break;
    const method = line[1]!;
    const override = /\r\nx-http-method:[ \t]*([A-Za-z]+)[ \t]*(?:\r\n|$)/i.exec(head);
    methods.push({ method, routedMethod: method === 'POST' && override !== null ? override[1]!.toUpperCase() : method });
    at = headEnd + 4;
    const length = /\r\ncontent-length:[ \t]*(\d{1,15})[ \t]*(?:\r\n|$)/i.exec(head);
    if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
      const after = skipChunked(text, at);
      if (typeof after !== 'number') break;
      at = after;
    } else if (length !== null) at += Number(length[1]);
  }
  return methods;
}

function delimit(text: string): { requests: ModelRequest[]; end: ModelEnd; stoppedAt: number } {
  const requests: ModelRequest[] = [];
  let at = 0;
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) {
      // Lone CRLFs before a request line are allowed (RFC 9112 2.2) and wait for more.
      return { requests, stoppedAt: at, end: text.length - at > MAX_HEAD_BYTES - 1024 ? 'unsure' : 'partial' };
    }
    const lines = text.slice(at, headEnd).split('\r\n');
    const [method = '', target = '', version = '', ...extra] = lines[0]!.split(' ');
    const fields = readFields(lines.slice(1));
    const te = fields?.get('transfer-encoding') ?? (/\r\ntransfer-encoding:/i.test(text.slice(at, headEnd)) ? ['?'] : undefined);
    const override = fields?.get('x-http-method')?.join(', ') ?? '';
    const routedMethod = method === 'POST' && /^[A-Za-z]+$/.test(override) ? override.toUpperCase() : method;
    requests.push({ method, transferEncoding: te?.join(', '), routedMethod });
    const headBytes = headEnd + 4 - at;
    if (headBytes > MAX_HEAD_BYTES - 1024) return { requests, stoppedAt: at, end: headBytes > MAX_HEAD_BYTES + 1024 ? 'refuse' : 'unsure' };
    if (!KNOWN_METHODS.has(method) || extra.length > 0 || (version !== 'HTTP/1.1' && version !== 'HTTP/1.0')) {
      return { requests, stoppedAt: at, end: 'refuse' };
    }
    if (/[^\x21-\x7e]/.test(target)) return { requests, stoppedAt: at, end: 'unsure' };
    // RFC 9112 3.2: origin form, absolute form, `*`, or an authority for CONNECT.
    if (method !== 'CONNECT' && !/^(\/|\*$|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/.test(target)) return { requests, stoppedAt: at, end: 'refuse' };
    if (fields === undefined) return { requests, stoppedAt: at, end: 'unsure' };
    const lengths = fields.get('content-length');
    at = headEnd + 4;
    if (method === 'CONNECT') return { requests, stoppedAt: at, end: 'close' };
    if (te !== undefined) {
      if (lengths !== undefined || te.length > 1) return { requests, stoppedAt: at, end: 'refuse' };
      const codings = te[0]!.split(',').map((c) => c.trim().toLowerCase());
      if (codings[codings.length - 1] !== 'chunked') return { requests, stoppedAt: at, end: 'refuse' };
      // `gzip, chunked` is framed, but a coding the service cannot undo is a 501, then close.
      if (codings.length > 1) return { requests, stoppedAt: at, end: 'close' };
      const after = skipChunked(text, at);
      if (after === 'bad') return { requests, stoppedAt: at, end: 'refuse' };
      if (after === 'incomplete') return { requests, stoppedAt: at, end: 'stall' };
      at = after;
    } else if (lengths !== undefined) {
      if (lengths.length > 1 || !/^\d{1,15}$/.test(lengths[0]!)) return { requests, stoppedAt: at, end: 'refuse' };
      const length = Number(lengths[0]);
      if (at + length > text.length) return { requests, stoppedAt: at, end: 'stall' };
      at += length;
    }
    const connection = fields.get('connection')?.join(',').toLowerCase() ?? '';
    if (connection.includes('close') || (version === 'HTTP/1.0' && !connection.includes('keep-alive'))) {
      return { requests, stoppedAt: at, end: at < text.length ? 'unsure' : 'close' };
    }
    // An upgrade takes both `Connection: upgrade` and an Upgrade field; either alone is ordinary.
    if (connection.includes('upgrade') && fields.has('upgrade')) return { requests, stoppedAt: at, end: 'unsure' };
  }
  return { requests, stoppedAt: at, end: 'open' };
}

/** Field values by lower-cased name; undefined when a line is not a clean `name: value`. */
function readFields(lines: readonly string[]): Map<string, string[]> | undefined {
  const fields = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (!TOKEN.test(name) || /[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return undefined;
    const key = name.toLowerCase();
    fields.set(key, [...(fields.get(key) ?? []), value]);
  }
  return fields;
}

/** The offset after a chunked body starting at `at`. */
function skipChunked(text: string, at: number): number | 'bad' | 'incomplete' {
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    if (lineEnd < 0) return 'incomplete';
    const sizeText = text.slice(at, lineEnd).split(';')[0]!;
    if (!/^[0-9a-fA-F]{1,15}$/.test(sizeText)) return 'bad';
    const size = parseInt(sizeText, 16);
    at = lineEnd + 2;
    if (size === 0) {
      // Trailer fields, then an empty line.
      for (;;) {
        const end = text.indexOf('\r\n', at);
        if (end < 0) return 'incomplete';
        const empty = end === at;
        at = end + 2;
        if (empty) return at;
      }
    }
    if (at + size + 2 > text.length) return 'incomplete';
    if (text.slice(at + size, at + size + 2) !== '\r\n') return 'bad';
    at += size + 2;
  }
}

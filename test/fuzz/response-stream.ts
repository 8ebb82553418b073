/**
 * Reads the bytes a server sent on one connection as a client must (RFC 9112 6.3): status
 * line, fields, then a body framed by the request method, the status, Transfer-Encoding:
 * chunked or Content-Length, or the close of the connection. Interim (1xx) answers are kept
 * apart from final ones.
 */

export interface WireResponse {
  readonly status: number;
  /** Field values by lower-cased name, in order. */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  readonly body: Buffer;
  /** The body ran to the close of the connection (no length was given). */
  readonly closeDelimited: boolean;
}

export interface ParsedStream {
  /** Final responses, in order. */
  readonly responses: readonly WireResponse[];
  readonly interim: number;
  /** Bytes after the last whole response (an incomplete one, or garbage). */
  readonly rest: Buffer;
  /** Why the bytes are not HTTP, if they are not. */
  readonly error: string | undefined;
}

const STATUS_LINE = /^HTTP\/1\.[01] ([1-5]\d\d)(?: [^\r\n]*)?$/;
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Parses `data`; `methods[i]` is the wire method of the request the i-th final response
 * answers (HEAD bodies are empty, a 2xx to CONNECT starts a tunnel). `closed`: the server
 * closed the connection, so a body without a length ends here.
 */
export function parseResponseStream(data: Buffer, methods: readonly string[], closed: boolean): ParsedStream {
  const responses: WireResponse[] = [];
  let interim = 0;
  let at = 0;
  const done = (error?: string): ParsedStream => ({ responses, interim, rest: data.subarray(at), error });
  while (at < data.length) {
    const headEnd = data.indexOf(CRLF2, at);
    if (headEnd < 0) {
      const start = data.subarray(at, at + 9).toString('latin1');
      return done('HTTP/1.1 '.startsWith(start) || start.startsWith('HTTP/1.') ? undefined : `not a status line: ${JSON.stringify(start)}`);
    }
    const lines = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) return done(`bad status line ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    const fields = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, Math.max(colon, 0));
      if (colon <= 0 || !FIELD_NAME.test(name) || /[\r\n\x00]/.test(line)) return done(`bad field line ${JSON.stringify(line.slice(0, 80))}`);
      const key = name.toLowerCase();
      fields.set(key, [...(fields.get(key) ?? []), line.slice(colon + 1).trim()]);
    }
    const code = Number(status[1]);
    const bodyStart = headEnd + 4;
    if (code < 200) {
      interim++;
      at = bodyStart;
      continue;
    }
    const method = methods[responses.length] ?? 'GET';
    const framing = bodyFraming(code, method, fields);
    if (typeof framing === 'object') return done(framing.error);
    let bodyEnd: number;
    let body: Buffer | undefined;
    if (framing === 'none') bodyEnd = bodyStart;
    else if (framing === 'chunked') {
      const chunked = readChunked(data, bodyStart);
      if (chunked === 'incomplete') return done();
      if (chunked === 'bad') return done('bad chunked body');
      ({ end: bodyEnd, body } = chunked);
    } else if (framing === 'close') {
      if (!closed) return done();
      bodyEnd = data.length;
    } else {
      if (bodyStart + framing > data.length) return done();
      bodyEnd = bodyStart + framing;
    }
    responses.push({ status: code, fields, body: body ?? data.subarray(bodyStart, bodyEnd), closeDelimited: framing === 'close' });
    at = bodyEnd;
    if (method === 'CONNECT' && code < 300) break;
  }
  return done();
}

type Framing = 'none' | 'chunked' | 'close' | number | { error: string };

/** RFC 9112 6.3, in its order. */
function bodyFraming(code: number, method: string, fields: ReadonlyMap<string, readonly string[]>): Framing {
  if (method === 'HEAD' || code === 204 || code === 304) return 'none';
  if (method === 'CONNECT' && code < 300) return 'none';
  const te = fields.get('transfer-encoding');
  const lengths = fields.get('content-length');
  if (te !== undefined) {
    if (lengths !== undefined) return { error: 'both Transfer-Encoding and Content-Length' };
    return te.join(',').trim().toLowerCase() === 'chunked' ? 'chunked' : { error: `response coding ${te.join(',')}` };
  }
  if (lengths === undefined) return 'close';
  const distinct = new Set(lengths.flatMap((v) => v.split(',').map((s) => s.trim())));
  const [only] = distinct;
  if (distinct.size !== 1 || !/^\d{1,15}$/.test(only!)) return { error: `bad Content-Length ${lengths.join(',')}` };
  return Number(only);
}

/** The end of a chunked body starting at `at`, and its decoded bytes. */
function readChunked(data: Buffer, at: number): { end: number; body: Buffer } | 'bad' | 'incomplete' {
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at, 'latin1');
    if (lineEnd < 0) return 'incomplete';
    const sizeText = data.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]{1,15}$/.test(sizeText)) return 'bad';
    const size = parseInt(sizeText, 16);
    at = lineEnd + 2;
    if (size === 0) {
      for (;;) {
        const end = data.indexOf('\r\n', at, 'latin1');
        if (end < 0) return 'incomplete';
        const empty = end === at;
        at = end + 2;
        if (empty) return { end: at, body: Buffer.concat(parts) };
      }
    }
    if (at + size + 2 > data.length) return 'incomplete';
    if (data[at + size] !== 0x0d || data[at + size + 1] !== 0x0a) return 'bad';
    parts.push(data.subarray(at, at + size));
    at += size + 2;
  }
}

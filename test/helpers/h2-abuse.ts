/**
 * HTTP/2 as a hostile client speaks it, for tests of the secure listener's bounds: the few frames
 * such a client needs, encoded by hand (RFC 9113 section 4.1, RFC 7541 for the header block),
 * written over a TLS connection that chose h2 by ALPN, and what the server sent back, frame by
 * frame. Also the well-behaved client's view: how long another client's `GET /` over https takes
 * meanwhile, on HTTP/1.1 and on h2.
 */
import { once } from 'node:events';
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';

/** RFC 9113 section 3.4: what a client sends before its first frame. */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Frame types (RFC 9113 section 6). */
const FRAME = Object.freeze({ DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, PING: 0x6, GOAWAY: 0x7, CONTINUATION: 0x9 });
/** Flags (RFC 9113 section 6): ACK on SETTINGS and PING, the two others on HEADERS. */
const FLAG = Object.freeze({ ACK: 0x1, END_STREAM: 0x1, END_HEADERS: 0x4 });
/** Settings identifiers (RFC 9113 section 6.5.2). */
export const SETTING = Object.freeze({ HEADER_TABLE_SIZE: 0x1, ENABLE_PUSH: 0x2, MAX_CONCURRENT_STREAMS: 0x3, INITIAL_WINDOW_SIZE: 0x4, MAX_FRAME_SIZE: 0x5, MAX_HEADER_LIST_SIZE: 0x6 });

/** Error codes by number (RFC 9113 section 7), for figures a reader can tell apart. */
const ERROR_NAMES = [
  'NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR',
  'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED',
] as const;

/** The name of an HTTP/2 error code: `0xb` is `ENHANCE_YOUR_CALM`. */
function errorName(code: number): string {
  return ERROR_NAMES[code] ?? `0x${code.toString(16)}`;
}

/** One frame: the 9-byte header (RFC 9113 section 4.1), then the payload. */
function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** A SETTINGS frame with `entries` (identifier, value), each six bytes. */
export function settingsFrame(entries: readonly (readonly [number, number])[]): Buffer {
  const payload = Buffer.alloc(6 * entries.length);
  entries.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(FRAME.SETTINGS, 0, 0, payload);
}

const SETTINGS_ACK = frame(FRAME.SETTINGS, FLAG.ACK, 0);

/** A PING whose eight bytes of data carry `n`. */
export function pingFrame(n: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(n >>> 0, 4);
  return frame(FRAME.PING, 0, 0, payload);
}

/** An RST_STREAM frame: the client gives up on stream `streamId` with error `code`. */
export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code, 0);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

/** RFC 7541 section 5.1: `value` with an N-bit prefix (the prefix's other bits zero). */
function hpackInteger(value: number, prefixBits: number): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([value]);
  const bytes = [max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** RFC 7541 section 5.2: a string literal, not Huffman-coded. */
function hpackString(text: string): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInteger(bytes.length, 7), bytes]);
}

/**
 * A header block of literal fields without indexing, each with a new name (RFC 7541 section
 * 6.2.2): nothing enters the server's dynamic table, so every block stands alone.
 */
function headerBlock(fields: readonly (readonly [string, string])[]): Buffer {
  return Buffer.concat(fields.flatMap(([name, value]) => [Buffer.from([0x00]), hpackString(name), hpackString(value)]));
}

/** The fields of a GET for `path` on the test certificate's host. */
export function getFields(path: string): [string, string][] {
  return [[':method', 'GET'], [':scheme', 'https'], [':authority', 'localhost'], [':path', path]];
}

/** The largest frame payload a peer must accept before it says otherwise (RFC 9113 section 4.2). */
const DEFAULT_MAX_FRAME_SIZE = 16_384;

/**
 * A whole request without a body: a HEADERS frame with END_STREAM, and CONTINUATION frames when
 * the block is larger than a frame may be, the last with END_HEADERS (RFC 9113 section 6.10).
 */
export function requestFrames(streamId: number, fields: readonly (readonly [string, string])[]): Buffer {
  const block = headerBlock(fields);
  const frames: Buffer[] = [];
  for (let at = 0; at === 0 || at < block.length; at += DEFAULT_MAX_FRAME_SIZE) {
    const last = at + DEFAULT_MAX_FRAME_SIZE >= block.length;
    const fragment = block.subarray(at, at + DEFAULT_MAX_FRAME_SIZE);
    const type = at === 0 ? FRAME.HEADERS : FRAME.CONTINUATION;
    frames.push(frame(type, (at === 0 ? FLAG.END_STREAM : 0) | (last ? FLAG.END_HEADERS : 0), streamId, fragment));
  }
  return Buffer.concat(frames);
}

/** What the server sent on one raw connection, counted by kind. */
export interface ServerFrames {
  /** HEADERS frames: a response begun (or trailers, which this service never sends). */
  responses: number;
  /** Body bytes received in DATA frames. */
  dataBytes: number;
  /** RST_STREAM frames, by error name. */
  readonly resets: Map<string, number>;
  /** SETTINGS frames that were not acknowledgements, and acknowledgements of ours. */
  settings: number;
  settingsAcks: number;
  pingAcks: number;
  /** The first GOAWAY: its error name and the last stream the server says it processed. */
  goaway?: { readonly code: string; readonly lastStreamId: number };
}

/** How a raw connection ended. */
export interface ConnectionEnd {
  /** `fin` for a clean close by the server, else the socket error's code. */
  readonly how: string;
  readonly frames: ServerFrames;
}

/**
 * A TLS connection that chose h2 by ALPN, driven frame by frame. It reads and counts what the
 * server sends and acknowledges the server's SETTINGS, as any client must; `pauseReading()`
 * makes it a client that reads nothing at all.
 */
/** Counts of nothing yet. */
export function noFrames(): ServerFrames {
  return { responses: 0, dataBytes: 0, resets: new Map(), settings: 0, settingsAcks: 0, pingAcks: 0 };
}

export class RawH2Connection {
  readonly frames: ServerFrames = noFrames();
  /** Resolves when the connection is closed, by either side. */
  readonly ended: Promise<ConnectionEnd>;
  readonly #socket: tls.TLSSocket;
  #pending: Buffer = Buffer.alloc(0);

  private constructor(socket: tls.TLSSocket) {
    this.#socket = socket;
    let how = 'fin';
    socket.on('error', (err: NodeJS.ErrnoException) => (how = err.code ?? err.message));
    socket.on('data', (chunk: Buffer) => this.#take(chunk));
    // Not events.once: it would reject on the socket's 'error', which comes before its 'close'.
    this.ended = new Promise((resolve) => socket.once('close', () => resolve({ how, frames: this.frames })));
  }

  /** Connects, checks that h2 was chosen, and sends the preface and SETTINGS with `settings`. */
  static async open(port: number, ca: string, settings: readonly (readonly [number, number])[] = []): Promise<RawH2Connection> {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca, ALPNProtocols: ['h2'] });
    await once(socket, 'secureConnect');
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy();
      throw new Error(`the server chose ${String(socket.alpnProtocol)}, not h2`);
    }
    const connection = new RawH2Connection(socket);
    connection.#socket.write(Buffer.concat([PREFACE, settingsFrame(settings)]));
    return connection;
  }

  get closed(): boolean {
    return this.#socket.destroyed;
  }

  /** Writes `bytes`; resolves once the socket will take more (at once unless its buffer is full). */
  async send(bytes: Buffer): Promise<void> {
    if (this.#socket.destroyed) return;
    if (this.#socket.write(bytes)) return;
    // A write the server refused (it closed) ends the connection, which `ended` reports.
    await Promise.race([once(this.#socket, 'drain').catch(() => {}), this.ended]);
  }

  /** Stops reading: what the server sends stays in its buffers and the kernel's. */
  pauseReading(): void {
    this.#socket.pause();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #take(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (this.#pending.length >= 9) {
      const length = this.#pending.readUIntBE(0, 3);
      if (this.#pending.length < 9 + length) break;
      this.#count(this.#pending[3]!, this.#pending[4]!, this.#pending.subarray(9, 9 + length));
      this.#pending = this.#pending.subarray(9 + length);
    }
  }

  #count(type: number, flags: number, payload: Buffer): void {
    const f = this.frames;
    if (type === FRAME.HEADERS) f.responses++;
    else if (type === FRAME.DATA) f.dataBytes += payload.length;
    else if (type === FRAME.RST_STREAM) {
      const name = errorName(payload.readUInt32BE(0));
      f.resets.set(name, (f.resets.get(name) ?? 0) + 1);
    } else if (type === FRAME.SETTINGS && (flags & FLAG.ACK) !== 0) f.settingsAcks++;
    else if (type === FRAME.SETTINGS) {
      f.settings++;
      this.#socket.write(SETTINGS_ACK);
    } else if (type === FRAME.PING && (flags & FLAG.ACK) !== 0) f.pingAcks++;
    else if (type === FRAME.GOAWAY && f.goaway === undefined) {
      f.goaway = { lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, code: errorName(payload.readUInt32BE(4)) };
    }
  }
}

/** What a frame count says, on one line: `3 responses, RST_STREAM REFUSED_STREAM x12, GOAWAY ENHANCE_YOUR_CALM (last stream 5)`. */
export function describeFrames(f: ServerFrames): string {
  const resets = [...f.resets].map(([name, n]) => `RST_STREAM ${name} x${n}`);
  const goaway = f.goaway ? [`GOAWAY ${f.goaway.code} (last stream ${f.goaway.lastStreamId})`] : ['no GOAWAY'];
  return [`${f.responses} responses`, ...resets, ...goaway].join(', ');
}

/** Adds the counts of `more` into `total`. */
export function addFrames(total: ServerFrames, more: ServerFrames): void {
  total.responses += more.responses;
  total.dataBytes += more.dataBytes;
  total.settings += more.settings;
  total.settingsAcks += more.settingsAcks;
  total.pingAcks += more.pingAcks;
  for (const [name, n] of more.resets) total.resets.set(name, (total.resets.get(name) ?? 0) + n);
  total.goaway ??= more.goaway;
}

/** The milliseconds a `GET /` over https on a new HTTP/1.1 connection (no ALPN, so not h2) takes to be answered whole, or `capMs`. */
export function timeHttpsGetRoot(port: number, ca: string, capMs = 10_000): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/', servername: 'localhost', ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0 }));
    });
    req.setTimeout(capMs, () => req.destroy());
    req.on('error', () => resolve({ ms: capMs, status: 0 }));
  });
}

/** The milliseconds a `GET /` on a new h2 connection takes to be answered whole, or `capMs`. */
export function timeH2GetRoot(port: number, ca: string, capMs = 10_000): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca, servername: 'localhost' });
    let done = false;
    const finish = (status: number) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      session.destroy();
      resolve({ ms: status === 0 ? capMs : performance.now() - started, status });
    };
    const timer = setTimeout(() => finish(0), capMs);
    session.on('error', () => finish(0));
    const req = session.request({ ':path': '/' });
    let status = 0;
    req.on('response', (headers) => (status = Number(headers[':status'])));
    req.on('error', () => finish(0));
    req.resume();
    req.on('end', () => finish(status));
  });
}

/** A GET over h2 on a new connection: its status and body. */
export async function getOverH2(port: number, ca: string, path: string): Promise<{ status: number; body: Buffer }> {
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca, servername: 'localhost' });
  try {
    return await new Promise((resolve, reject) => {
      session.on('error', reject);
      const req = session.request({ ':path': path });
      const chunks: Buffer[] = [];
      let status = 0;
      req.on('response', (headers) => (status = Number(headers[':status'])));
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
      req.on('error', reject);
    });
  } finally {
    session.destroy();
  }
}

/** What one request on `session` got: `status 200`, `RST_STREAM ENHANCE_YOUR_CALM`, or `closed`. */
export function requestOutcome(session: http2.ClientHttp2Session, headers: http2.OutgoingHttpHeaders): Promise<string> {
  return new Promise((resolve) => {
    const req = session.request(headers);
    let outcome = '';
    req.on('response', (h) => (outcome = `status ${h[':status']}`));
    req.on('error', () => {}); // a reset is an outcome here, told by rstCode
    req.resume();
    req.on('close', () => resolve(outcome || (req.rstCode ? `RST_STREAM ${errorName(req.rstCode)}` : 'closed')));
  });
}

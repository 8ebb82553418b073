/**
 * RESP2 replies (https://redis.io/docs/latest/develop/reference/protocol-spec/), read
 * incrementally: feed the chunks a socket gives, get every reply they complete. Linear in the
 * bytes fed: a line is searched for its LF in new bytes only, a bulk string is copied once into
 * a buffer of its announced size, arrays are a stack of frames; nothing is re-scanned or
 * concatenated again per chunk. Bounded: every size Redis announces or sends is checked against
 * `ReplyLimits` before memory is taken, and a breach is a `RedisProtocolError` after which the
 * parser (and its connection) is done.
 */
import { RedisError, RedisProtocolError } from './errors.js';

/**
 * One reply: a simple string (`+OK`) is a string, an error (`-ERR …`) a `RedisError`, an integer
 * (`:1`) a number (a bigint beyond 2^53, where a number would round), a bulk string (`$3 foo`) a
 * Buffer, an array (`*2 …`) an array; nil bulk and nil array (`$-1`, `*-1`) are null.
 */
export type RedisReply = string | number | bigint | Buffer | null | RedisError | readonly RedisReply[];

/** How large a reply may be; a reply beyond any bound is a protocol error. */
export interface ReplyLimits {
  /** Bytes of one bulk string. */
  readonly maxBulkBytes: number;
  /** Elements of one array. */
  readonly maxArrayLength: number;
  /** Arrays inside arrays: 1 is a flat array. */
  readonly maxDepth: number;
  /** Bytes of one line (a simple string, an error, an integer, a header) before its CRLF. */
  readonly maxLineBytes: number;
  /** Bytes of one whole reply, its arrays' elements summed, framing included. */
  readonly maxReplyBytes: number;
}

/**
 * The bounds by default. What this service keeps in Redis is counters, byte counts and short
 * keys, answered in a few bytes: 1 MiB per bulk string still holds any document the service
 * might keep there one day, while a confused or hostile peer cannot make one reply take more
 * than 4 MiB of this process (Redis' own proto-max-bulk-len is 512 MB: far too much to hold for
 * one request). Arrays: EXEC and script results are a handful of elements; 4096 and a depth of
 * 8 leave room for SCAN pages and nested script tables. Lines: error messages and integers are
 * short; 64 KiB without a CRLF is a stream that is not RESP.
 */
export const DEFAULT_REPLY_LIMITS: ReplyLimits = Object.freeze({
  maxBulkBytes: 1024 * 1024,
  maxArrayLength: 4096,
  maxDepth: 8,
  maxLineBytes: 64 * 1024,
  maxReplyBytes: 4 * 1024 * 1024,
});

const CR = 0x0d;
const LF = 0x0a;

/** An array being filled: its elements so far and how many it announced. */
interface ArrayFrame {
  readonly items: RedisReply[];
  readonly length: number;
}

/** Reads replies from the chunks of one connection, in order. */
export class ReplyParser {
  readonly #limits: ReplyLimits;
  /** Arrays open around the value being read, innermost last. */
  readonly #frames: ArrayFrame[] = [];
  /** The start of the line being read, from earlier chunks (its end is in a later one). */
  #lineParts: Buffer[] = [];
  #lineBytes = 0;
  /** The bulk string being filled, and how much of it (its CRLF counted) has arrived. */
  #bulk: Buffer | undefined;
  #bulkFilled = 0;
  /** Bytes of the reply being read so far, against maxReplyBytes. */
  #replyBytes = 0;
  #failed: RedisProtocolError | undefined;

  constructor(limits: Partial<ReplyLimits> = {}) {
    this.#limits = { ...DEFAULT_REPLY_LIMITS, ...limits };
  }

  /** The replies `chunk` completes, in order; throws `RedisProtocolError` on bytes that are not RESP2 within the limits. */
  feed(chunk: Buffer): RedisReply[] {
    if (this.#failed) throw this.#failed;
    const replies: RedisReply[] = [];
    try {
      let at = 0;
      while (at < chunk.length) {
        at = this.#bulk ? this.#readBulk(chunk, at, replies) : this.#readLine(chunk, at, replies);
      }
    } catch (err) {
      if (err instanceof RedisProtocolError) this.#failed = err;
      throw err;
    }
    return replies;
  }

  /** Whether a reply has started and not ended: bytes are waiting for more. */
  get isMidReply(): boolean {
    return this.#bulk !== undefined || this.#lineBytes > 0 || this.#frames.length > 0;
  }

  #readLine(chunk: Buffer, at: number, replies: RedisReply[]): number {
    const lf = chunk.indexOf(LF, at);
    const end = lf === -1 ? chunk.length : lf + 1;
    this.#lineBytes += end - at;
    this.#count(end - at);
    // the type byte and CRLF come on top of the line's own bytes (a CR may be the last byte so far)
    if (this.#lineBytes > this.#limits.maxLineBytes + (lf === -1 ? 2 : 3)) throw new RedisProtocolError(`a reply line is longer than ${this.#limits.maxLineBytes} bytes`);
    if (lf === -1) {
      this.#lineParts.push(chunk.subarray(at));
      return chunk.length;
    }
    const piece = chunk.subarray(at, end);
    const line = this.#lineParts.length === 0 ? piece : Buffer.concat([...this.#lineParts, piece]);
    this.#lineParts = [];
    this.#lineBytes = 0;
    if (line.length < 2 || line[line.length - 2] !== CR) throw new RedisProtocolError('a reply line ends with LF alone, not CRLF');
    if (line.length === 2) throw new RedisProtocolError('an empty reply line, with no type byte');
    this.#onLine(line[0]!, line.subarray(1, line.length - 2), replies);
    return end;
  }

  #onLine(type: number, text: Buffer, replies: RedisReply[]): void {
    switch (type) {
      case 0x2b: // '+' simple string
        return this.#complete(text.toString('utf8'), replies);
      case 0x2d: // '-' error
        return this.#complete(new RedisError(text.toString('utf8')), replies);
      case 0x3a: // ':' integer
        return this.#complete(parseInteger(text), replies);
      case 0x24: { // '$' bulk string: $<len>, or $-1 for nil
        const length = parseLength(text);
        if (length === -1) return this.#complete(null, replies);
        if (length > this.#limits.maxBulkBytes) throw new RedisProtocolError(`a bulk string of ${length} bytes is over the ${this.#limits.maxBulkBytes}-byte limit`);
        this.#count(length + 2);
        this.#bulk = Buffer.allocUnsafe(length + 2);
        this.#bulkFilled = 0;
        return;
      }
      case 0x2a: { // '*' array: *<n>, or *-1 for nil
        const length = parseLength(text);
        if (length === -1) return this.#complete(null, replies);
        if (length > this.#limits.maxArrayLength) throw new RedisProtocolError(`an array of ${length} elements is over the ${this.#limits.maxArrayLength}-element limit`);
        if (length === 0) return this.#complete([], replies);
        if (this.#frames.length >= this.#limits.maxDepth) throw new RedisProtocolError(`arrays nest deeper than ${this.#limits.maxDepth}`);
        this.#frames.push({ items: [], length });
        return;
      }
      default:
        throw new RedisProtocolError(`a reply starts with byte 0x${type.toString(16).padStart(2, '0')}, not a RESP2 type`);
    }
  }

  #readBulk(chunk: Buffer, at: number, replies: RedisReply[]): number {
    const bulk = this.#bulk!;
    const copied = chunk.copy(bulk, this.#bulkFilled, at, Math.min(chunk.length, at + bulk.length - this.#bulkFilled));
    this.#bulkFilled += copied;
    if (this.#bulkFilled === bulk.length) {
      if (bulk[bulk.length - 2] !== CR || bulk[bulk.length - 1] !== LF) throw new RedisProtocolError('a bulk string does not end with CRLF');
      this.#bulk = undefined;
      this.#complete(bulk.subarray(0, bulk.length - 2), replies);
    }
    return at + copied;
  }

  /** A value is whole: it fills its array (closing every array it completes) or is a reply. */
  #complete(value: RedisReply, replies: RedisReply[]): void {
    let done = value;
    for (;;) {
      const frame = this.#frames[this.#frames.length - 1];
      if (!frame) break;
      frame.items.push(done);
      if (frame.items.length < frame.length) return;
      this.#frames.pop();
      done = frame.items;
    }
    this.#replyBytes = 0;
    replies.push(done);
  }

  #count(bytes: number): void {
    this.#replyBytes += bytes;
    if (this.#replyBytes > this.#limits.maxReplyBytes) throw new RedisProtocolError(`a reply is over the ${this.#limits.maxReplyBytes}-byte limit`);
  }
}

/** The decimal after `$` or `*`: -1 (nil) or a non-negative length. */
function parseLength(text: Buffer): number {
  if (text.length === 2 && text[0] === 0x2d && text[1] === 0x31) return -1; // '-1'
  const value = parseDigits(text, 0);
  if (value === undefined || value > Number.MAX_SAFE_INTEGER) throw new RedisProtocolError(`"${printable(text)}" is not a length`);
  return value;
}

/** The decimal after `:`: a signed 64-bit integer, a bigint when a number would round it. */
function parseInteger(text: Buffer): number | bigint {
  const negative = text[0] === 0x2d;
  const value = parseDigits(text, negative ? 1 : 0);
  if (value === undefined || text.length > 20) throw new RedisProtocolError(`"${printable(text)}" is not an integer`);
  if (value <= Number.MAX_SAFE_INTEGER) return negative ? -value : value;
  return BigInt(text.toString('latin1'));
}

/** The digits of `text` from `from` (at least one, nothing else), or undefined. */
function parseDigits(text: Buffer, from: number): number | undefined {
  if (text.length <= from) return undefined;
  let value = 0;
  for (let i = from; i < text.length; i++) {
    const digit = text[i]! - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/** A bad header for a message: short, one line. */
function printable(text: Buffer): string {
  return JSON.stringify(text.subarray(0, 32).toString('latin1')).slice(1, -1);
}

/**
 * Byte and bit output of the encoder: marker segments are written as bytes,
 * entropy-coded data through a 32-bit bit buffer that is emitted a whole word
 * at a time, with a 0x00 stuffed after every 0xFF byte (T.81 F.1.2.3) and
 * restart markers RST0..RST7 between restart intervals (T.81 B.1.1.3, F.1.2.3).
 */
import type { SymbolCodes } from './huffman.js';
import type { SpareBuffers } from './spare-buffers.js';
import type { SymbolStream } from './symbols.js';

/**
 * Records written per capacity check (each needs at most 4 bytes, 8 if
 * stuffed), and per call of the writer's hot loop: few enough that the first
 * call returns before V8 compiles the loop (see writeRecords).
 */
const CHUNK_RECORDS = 1024;
const BYTES_PER_RECORD = 8;

/** Growable output buffer with a bit writer for the scan. */
export class BitWriter {
  private buffer: Uint8Array;
  /** `buffer` seen as a DataView, for whole big-endian words in one store. */
  private view: DataView;
  private pos = 0;
  /** Pending bits, the most recent in the low bits; only the low `32 - free` count. */
  private acc = 0;
  /** Free bits in `acc`: 32 when empty, never 0 (a full word is emitted at once). */
  private free = 32;
  /** Number of the next RSTn marker, cycling 0..7. */
  private nextRestart = 0;

  /** Where the buffer comes from and goes back to when done; none: a new one, dropped after. */
  private readonly spares: SpareBuffers | undefined;

  constructor(initialCapacity = 1 << 16, spares?: SpareBuffers) {
    const capacity = Math.max(initialCapacity, 64);
    this.spares = spares;
    this.buffer = spares ? spares.takeBytes(capacity) : new Uint8Array(capacity);
    this.view = viewOf(this.buffer);
  }

  /** Bytes written so far (bits still in the buffer excluded). */
  get length(): number {
    return this.pos;
  }

  /** Makes room for `extra` more bytes. */
  ensure(extra: number): void {
    if (this.pos + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.pos + extra));
    grown.set(this.buffer.subarray(0, this.pos));
    this.buffer = grown;
    this.view = viewOf(grown);
  }

  /** Writes one byte as is (markers and segment contents, never stuffed). */
  writeByte(value: number): void {
    this.ensure(1);
    this.buffer[this.pos++] = value;
  }

  /** Writes a 16-bit big-endian value (T.81 B.1.1.3: all parameters are MSB first). */
  writeUint16(value: number): void {
    this.ensure(2);
    this.buffer[this.pos++] = value >>> 8;
    this.buffer[this.pos++] = value;
  }

  /** Writes bytes as is. */
  writeBytes(bytes: ArrayLike<number>): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** Appends the low `length` bits of `value` (1..27 bits), most significant first. */
  putBits(value: number, length: number): void {
    this.ensure(8);
    const bits = value & ((1 << length) - 1);
    if (length < this.free) {
      this.acc = (this.acc << length) | bits;
      this.free -= length;
      return;
    }
    const rest = length - this.free;
    this.pos = emitWord(this.view, this.buffer, this.pos, (this.acc << this.free) | (bits >>> rest));
    this.acc = bits;
    this.free = 32 - rest;
  }

  /**
   * Writes the scan data of a symbol stream with the given codes, putting a
   * restart marker wherever the stream marked the end of an interval.
   */
  writeSymbols(stream: SymbolStream, codes: SymbolCodes): void {
    let start = 0;
    for (const end of stream.restarts) {
      this.writeRecords(stream.records, start, end, codes);
      this.writeRestart();
      start = end;
    }
    this.writeRecords(stream.records, start, stream.length, codes);
  }

  /**
   * Writes records `start` to `end` in chunks, making room before each. The
   * chunks are short calls rather than one long loop: V8 compiles a loop that
   * runs long while it runs (on-stack replacement) from the type feedback
   * gathered so far, and the code after the loop, never run yet, had none; the
   * compiled loop then bailed out at its end, on every later call too when
   * compiling is synchronous, leaving the writer on slower code for good.
   * A short first call reaches its end before anything is compiled.
   */
  private writeRecords(records: Int32Array, start: number, end: number, table: SymbolCodes): void {
    for (let chunk = start; chunk < end; chunk += CHUNK_RECORDS) {
      const chunkEnd = Math.min(end, chunk + CHUNK_RECORDS);
      this.ensure((chunkEnd - chunk) * BYTES_PER_RECORD + 8);
      this.writeChunk(records, chunk, chunkEnd, table.packed);
    }
  }

  /** Hot loop of the encoder: one table look-up and one put per symbol; the caller has made room. */
  private writeChunk(records: Int32Array, start: number, end: number, packed: Int32Array): void {
    const { buffer, view } = this;
    let { acc, free, pos } = this;
    for (let i = start; i < end; i++) {
      const record = records[i]!;
      const code = packed[record >>> 16]!;
      const length = code & 31;
      const value = (code >>> 5) | (record & 0xffff);
      if (length < free) {
        acc = (acc << length) | value;
        free -= length;
      } else {
        const rest = length - free;
        pos = emitWord(view, buffer, pos, (acc << free) | (value >>> rest));
        acc = value;
        free = 32 - rest;
      }
    }
    this.acc = acc;
    this.free = free;
    this.pos = pos;
  }

  /** Pads the last partial byte with 1 bits (F.1.2.3) and writes out every pending bit. */
  flushBits(): void {
    const pending = 32 - this.free;
    const pad = (8 - (pending & 7)) & 7;
    if (pad > 0) this.putBits(0xff, pad);
    const bytes = (32 - this.free) >> 3;
    this.ensure(8);
    for (let k = bytes - 1; k >= 0; k--) {
      const byte = (this.acc >>> (8 * k)) & 0xff;
      this.buffer[this.pos++] = byte;
      if (byte === 0xff) this.buffer[this.pos++] = 0;
    }
    this.acc = 0;
    this.free = 32;
  }

  /** Ends a restart interval: byte-aligns the data and writes RSTn (n = 0..7 cyclically). */
  writeRestart(): void {
    this.flushBits();
    this.writeByte(0xff);
    this.writeByte(0xd0 + this.nextRestart);
    this.nextRestart = (this.nextRestart + 1) & 7;
  }

  /**
   * The bytes written, as a new array of exactly that length. The writer's
   * own buffer then goes back to the spares, if any; this writer is done.
   */
  toBytes(): Uint8Array {
    const bytes = this.buffer.slice(0, this.pos);
    this.spares?.keepBytes(this.buffer);
    this.buffer = new Uint8Array(0);
    this.view = viewOf(this.buffer);
    this.pos = 0;
    return bytes;
  }
}

function viewOf(buffer: Uint8Array): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Writes the 32 bits of `word` as 4 bytes, each 0xFF followed by a stuffed
 * 0x00, and returns the new position. The fast path tests all four bytes for
 * 0xFF at once (a byte of `word` is 0xFF exactly when that byte of ~word is 0,
 * and (x - 0x01010101) & ~x & 0x80808080 is non-zero exactly when x has a
 * zero byte) and then stores the word with one big-endian DataView write
 * instead of four byte stores.
 *
 * A const, not a function declaration: a declared function's binding can be
 * reassigned, so the compiled writer loop re-checked it at every call.
 */
const emitWord = (view: DataView, buffer: Uint8Array, pos: number, word: number): number => {
  const inverted = ~word;
  if (((inverted - 0x01010101) & word & 0x80808080) === 0) {
    view.setUint32(pos, word);
    return pos + 4;
  }
  for (let shift = 24; shift >= 0; shift -= 8) {
    const byte = (word >>> shift) & 0xff;
    buffer[pos++] = byte;
    if (byte === 0xff) buffer[pos++] = 0;
  }
  return pos;
};

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BitWriter } from '../../src/jpeg/bit-writer.js';
import { STD_AC_LUMA, STD_DC_LUMA, symbolCodes } from '../../src/jpeg/huffman.js';
import { SymbolStream } from '../../src/jpeg/symbols.js';

/** Writes `bits` (a string of 0/1, any length) and returns the flushed bytes. */
function written(bits: string, writer = new BitWriter(16)): number[] {
  for (let i = 0; i < bits.length; i += 16) {
    const chunk = bits.slice(i, i + 16);
    writer.putBits(parseInt(chunk, 2), chunk.length);
  }
  writer.flushBits();
  return [...writer.toBytes()];
}

describe('bit-writer', () => {
  it('writes bits most significant first and pads the last byte with ones', () => {
    assert.deepEqual(written('101'), [0b10111111]);
    assert.deepEqual(written('0000000100000010'), [0x01, 0x02]);
    assert.deepEqual(written(''), []);
  });

  it('stuffs a zero byte after every 0xFF in the entropy-coded data', () => {
    assert.deepEqual(written('11111111'), [0xff, 0x00]);
    assert.deepEqual(written('00010010111111110011010001010110'), [0x12, 0xff, 0x00, 0x34, 0x56]);
    assert.deepEqual(written('1'.repeat(32)), [0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0]);
  });

  it('stuffs a 0xFF made by the one-bit padding', () => {
    assert.deepEqual(written('1111111'), [0xff, 0x00]);
  });

  it('carries bits across 32-bit words without losing any', () => {
    const bits = Array.from({ length: 203 }, (_, i) => ((i * 7) % 3 === 0 ? '1' : '0')).join('');
    const bytes = written(bits);
    const back = bytes.map((b) => b.toString(2).padStart(8, '0')).join('');
    assert.equal(back.slice(0, 203), bits);
    assert.equal(back.slice(203), '1'.repeat(5));
  });

  it('byte-aligns before RSTn and numbers the markers 0 to 7 cyclically', () => {
    const writer = new BitWriter(4);
    for (let i = 0; i < 9; i++) {
      writer.putBits(0, 1);
      writer.writeRestart();
    }
    const bytes = [...writer.toBytes()];
    const expected = [];
    for (let i = 0; i < 9; i++) expected.push(0x7f, 0xff, 0xd0 + (i % 8));
    assert.deepEqual(bytes, expected);
  });

  it('writes byte segments unstuffed and grows past its initial capacity', () => {
    const writer = new BitWriter(1);
    writer.writeByte(0xff);
    writer.writeUint16(0xd8ff);
    writer.writeBytes(new Uint8Array(100).fill(0xff));
    const bytes = writer.toBytes();
    assert.equal(bytes.length, 103);
    assert.ok(bytes.every((b) => b === 0xff || b === 0xd8));
  });

  it('writes symbol records with their codes and a restart marker where the stream marks one', () => {
    const stream = new SymbolStream(8);
    // DC category 2 (code 011) with bits 10, then EOB (1010); restart; DC category 0 (00), EOB.
    stream.records[0] = (2 << 16) | 0b10;
    stream.records[1] = ((256 + 0x00) << 16);
    stream.length = 2;
    stream.markRestart();
    stream.records[2] = 0;
    stream.records[3] = (256 + 0x00) << 16;
    stream.length = 4;
    const writer = new BitWriter(8);
    writer.writeSymbols(stream, symbolCodes([STD_DC_LUMA, STD_AC_LUMA]));
    writer.flushBits();
    // 011 10 1010 + 1111 padding = 0111 0101 0111 1111; then FF D0; 00 1010 11 = 0x2B
    assert.deepEqual([...writer.toBytes()], [0x75, 0x7f, 0xff, 0xd0, 0x2b]);
  });

  it('writes a long run of records, across its chunks and buffer growth, as putBits would', () => {
    const codes = symbolCodes([STD_DC_LUMA, STD_AC_LUMA]);
    const stream = new SymbolStream(5000);
    // AC 0/3 (code 100) with 3 bits, and AC 0/2 (01) with bits 11: 0xFF bytes to stuff now and then.
    for (let i = 0; i < 5000; i++) stream.records[i] = i % 3 === 0 ? ((256 + 0x03) << 16) | (i & 7) : ((256 + 0x02) << 16) | 3;
    stream.length = 5000;
    const fast = new BitWriter(16);
    fast.writeSymbols(stream, codes);
    fast.flushBits();
    const slow = new BitWriter(16);
    for (let i = 0; i < 5000; i++) {
      if (i % 3 === 0) slow.putBits((0b100 << 3) | (i & 7), 6);
      else slow.putBits(0b0111, 4);
    }
    slow.flushBits();
    assert.deepEqual(fast.toBytes(), slow.toBytes());
  });
});

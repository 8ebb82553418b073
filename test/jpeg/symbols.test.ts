import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DctBlock } from '../../src/jpeg/dct.js';
import { makeQuantDivisors, type QuantDivisors } from '../../src/jpeg/quantize.js';
import {
  addBlock, addDcOnlyBlock, addDummyBlock, EOB, MAX_RECORDS_PER_BLOCK, SymbolStream, ZRL,
} from '../../src/jpeg/symbols.js';
import { ZIGZAG } from '../../src/jpeg/zigzag.js';

/** Quantisation by 1 (divisor 8): a DCT output of 8 * v quantises to v. */
const unit = makeQuantDivisors(new Uint8Array(64).fill(1));

/** DCT output (zig-zag order) whose quantised coefficients are `levels` at the given positions. */
function block(levels: Record<number, number>): DctBlock {
  const dct = new Int32Array(64);
  for (const [k, v] of Object.entries(levels)) dct[Number(k)] = 8 * v;
  return transformed(dct, unit);
}

/** A block as the DCT leaves it for output `dct` (zig-zag order): natural order, marked beyond q's dead zones. */
function transformed(dct: Int32Array, q: QuantDivisors): DctBlock {
  const out = new DctBlock();
  for (let k = 0; k < 64; k++) {
    const n = ZIGZAG[k];
    out.coefficients[n] = dct[k];
    if (Math.abs(dct[k]) > q.deadZone[n]) {
      if (n < 32) out.marksLow |= 1 << n;
      else out.marksHigh |= 1 << (n - 32);
    }
  }
  return out;
}

/** Records as [slot, symbol, bits] triples. */
function decoded(stream: SymbolStream): Array<[number, number, number]> {
  return [...stream.records.subarray(0, stream.length)].map((r) => [r >>> 24, (r >>> 16) & 255, r & 0xffff]);
}

describe('symbols', () => {
  it('codes the DC difference as its category and low bits (Table F.1)', () => {
    const cases: Array<[number, number, number, number]> = [
      // dc, predictor, category, bits
      [5, 2, 2, 0b11],
      [2, 5, 2, 0b00], // -3: bits of -4 = ...100
      [4, 5, 1, 0b0], // -1
      [5, 5, 0, 0],
      [-1024, 1023, 11, 0], // -2047: the largest baseline difference
    ];
    for (const [dc, predictor, category, bits] of cases) {
      const stream = new SymbolStream(MAX_RECORDS_PER_BLOCK);
      assert.equal(addBlock(stream, block({ 0: dc }), unit, predictor, 0), dc, `dc ${dc}`);
      assert.deepEqual(decoded(stream)[0], [0, category, bits], `dc ${dc} after ${predictor}`);
    }
  });

  it('codes AC runs, sizes, ZRL for 16 zeros and EOB (F.1.2.2)', () => {
    const stream = new SymbolStream(MAX_RECORDS_PER_BLOCK);
    addBlock(stream, block({ 0: 0, 1: -3, 20: 1, 22: 100 }), unit, 0, 0);
    assert.deepEqual(decoded(stream), [
      [0, 0, 0], // DC difference 0
      [1, 0x02, 0b00], // run 0, size 2, -3 -> bits of -4
      [1, ZRL, 0], // 16 of the 18 zeros before position 20
      [1, 0x21, 0b1], // run 2, size 1
      [1, 0x17, 100], // run 1, size 7
      [1, EOB, 0],
    ]);
  });

  it('sends no EOB when the last coefficient is non-zero', () => {
    const stream = new SymbolStream(MAX_RECORDS_PER_BLOCK);
    addBlock(stream, block({ 63: 1 }), unit, 0, 2);
    assert.deepEqual(decoded(stream), [[2, 0, 0], [3, ZRL, 0], [3, ZRL, 0], [3, ZRL, 0], [3, 0xe1, 1]]);
  });

  it('quantises while coding: outputs below the threshold are zeros', () => {
    const q = makeQuantDivisors(new Uint8Array(64).fill(10)); // divisor 80, dead zone 39
    const dct = new Int32Array(64);
    dct[1] = 39;
    dct[2] = -40;
    dct[3] = 119;
    dct[4] = 120;
    const stream = new SymbolStream(MAX_RECORDS_PER_BLOCK);
    addBlock(stream, transformed(dct, q), q, 0, 0);
    assert.deepEqual(decoded(stream).slice(1), [[1, 0x11, 0b0], [1, 0x01, 1], [1, 0x02, 2], [1, EOB, 0]]);
  });

  it('finds a coefficient just outside the dead zone at every position, next to one just inside', () => {
    const q = makeQuantDivisors(new Uint8Array(64).fill(10)); // divisor 80: |t| <= 39 quantises to 0
    for (let k = 1; k < 64; k++) {
      for (const sign of [1, -1]) {
        const dct = new Int32Array(64);
        dct[k] = 40 * sign;
        if (k > 1) dct[k - 1] = -39 * sign;
        if (k < 63) dct[k + 1] = 39 * sign;
        const stream = new SymbolStream(MAX_RECORDS_PER_BLOCK);
        addBlock(stream, transformed(dct, q), q, 0, 0);
        const zrl = Array.from({ length: (k - 1) >> 4 }, () => [1, ZRL, 0]);
        const coded = [1, (((k - 1) & 15) << 4) | 1, sign > 0 ? 1 : 0]; // size 1: bit 1 for +1, 0 for -1
        const eob = k < 63 ? [[1, EOB, 0]] : [];
        assert.deepEqual(decoded(stream).slice(1), [...zrl, coded, ...eob], `position ${k}, sign ${sign}`);
      }
    }
  });

  it('counts every symbol it appends per slot', () => {
    const stream = new SymbolStream(4 * MAX_RECORDS_PER_BLOCK);
    addBlock(stream, block({ 0: 3, 1: 1 }), unit, 0, 0);
    addBlock(stream, block({ 0: 3, 1: 1 }), unit, 3, 2);
    assert.equal(stream.counts[0 * 256 + 2], 1, 'DC luma category 2');
    assert.equal(stream.counts[1 * 256 + 0x01], 1, 'AC luma 0/1');
    assert.equal(stream.counts[2 * 256 + 0], 1, 'DC chroma category 0');
    assert.equal(stream.counts[3 * 256 + EOB], 1, 'AC chroma EOB');
    assert.equal(stream.counts.reduce((a, b) => a + b, 0), stream.length);
  });

  it('codes a dummy block as a zero DC difference and an EOB', () => {
    const stream = new SymbolStream(4);
    addDummyBlock(stream, 2);
    assert.deepEqual(decoded(stream), [[2, 0, 0], [3, EOB, 0]]);
  });

  it('codes a DC-only block like the full path does', () => {
    const fast = new SymbolStream(4);
    const full = new SymbolStream(MAX_RECORDS_PER_BLOCK);
    assert.equal(addDcOnlyBlock(fast, -8 * 37, unit, 4, 0), -37);
    addBlock(full, block({ 0: -37 }), unit, 4, 0);
    assert.deepEqual(decoded(fast), decoded(full));
  });

  it('grows its storage and remembers restart positions', () => {
    const stream = new SymbolStream(2);
    addDummyBlock(stream, 0);
    stream.markRestart();
    stream.reserve(10);
    addDummyBlock(stream, 0);
    assert.ok(stream.records.length >= 12);
    assert.deepEqual(stream.restarts, [2]);
    assert.equal(stream.length, 4);
    stream.clearRecords();
    assert.deepEqual([stream.length, stream.restarts.length], [0, 0]);
  });
});

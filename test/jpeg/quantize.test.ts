import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  makeQuantDivisors, qualityScaleFactor, quantize, QUANT_INPUT_BITS, scaleQuantTable, STD_CHROMA_QUANT, STD_LUMA_QUANT,
} from '../../src/jpeg/quantize.js';
import { ZIGZAG } from '../../src/jpeg/zigzag.js';

describe('quantize', () => {
  it('scales quality 50 to the Annex K tables as printed', () => {
    assert.equal(qualityScaleFactor(50), 100);
    assert.deepEqual([...scaleQuantTable(STD_LUMA_QUANT, 50)], STD_LUMA_QUANT);
    assert.deepEqual([...scaleQuantTable(STD_CHROMA_QUANT, 50)], STD_CHROMA_QUANT);
  });

  it('scales quality 100 to all ones', () => {
    assert.equal(qualityScaleFactor(100), 0);
    assert.deepEqual([...scaleQuantTable(STD_LUMA_QUANT, 100)], new Array(64).fill(1));
  });

  it('scales quality 1 by 5000 % and clamps to 255 for baseline', () => {
    assert.equal(qualityScaleFactor(1), 5000);
    assert.deepEqual([...scaleQuantTable(STD_CHROMA_QUANT, 1)], new Array(64).fill(255));
  });

  it('rounds (base * factor + 50) / 100 down between the extremes', () => {
    // quality 85: factor 30; 16 * 30 + 50 = 530 -> 5; 11 * 30 + 50 = 380 -> 3
    assert.equal(qualityScaleFactor(85), 30);
    const q85 = scaleQuantTable(STD_LUMA_QUANT, 85);
    assert.deepEqual([q85[0], q85[1], q85[2], q85[63]], [5, 3, 3, 30]);
    // quality 25: factor 200; quality 10: factor 500 (5000 / 10); quality 3: 1666 (5000 / 3 truncated)
    assert.equal(scaleQuantTable(STD_LUMA_QUANT, 25)[0], 32);
    assert.equal(qualityScaleFactor(3), 1666);
    assert.equal(scaleQuantTable(STD_LUMA_QUANT, 3)[1], Math.min(255, Math.trunc((11 * 1666 + 50) / 100)));
  });

  it('keeps every entry at least 1', () => {
    for (const quality of [90, 95, 99, 100]) {
      const table = scaleQuantTable(STD_LUMA_QUANT, quality);
      assert.ok(table.every((v) => v >= 1), `quality ${quality}`);
    }
  });

  it('divides exactly in floating point for every divisor and dividend below 2^14', () => {
    // The quotient m must satisfy m * d <= N < (m + 1) * d, checked in exact integer arithmetic.
    for (let d = 8; d <= 255 * 8; d += 8) {
      for (let dividend = 0; dividend < 1 << QUANT_INPUT_BITS; dividend++) {
        const m = (dividend / d) | 0;
        if (m * d > dividend || (m + 1) * d <= dividend) assert.fail(`divisor ${d}, dividend ${dividend}`);
      }
    }
  });

  it('orders its constants naturally, 8 times the table entry', () => {
    const q = makeQuantDivisors(scaleQuantTable(STD_LUMA_QUANT, 50));
    for (let n = 0; n < 64; n++) assert.equal(q.divisor[n], STD_LUMA_QUANT[n] * 8, `index ${n}`);
  });

  it('lists each zig-zag position with its natural index and divisor', () => {
    const q = makeQuantDivisors(scaleQuantTable(STD_LUMA_QUANT, 50));
    assert.equal(q.zigzag[0], 0 | (16 * 8) << 8); // the DC: Q 16
    assert.equal(q.zigzag[2], 8 | (12 * 8) << 8); // (row 1, column 0): Q 12
    assert.equal(q.zigzag[63], 63 | (99 * 8) << 8);
    for (let k = 0; k < 64; k++) {
      assert.equal(q.zigzag[k] >> 8, q.divisor[ZIGZAG[k]], `position ${k}`);
      assert.equal(q.zigzag[k] & 63, ZIGZAG[k], `position ${k}`);
    }
  });

  it('rounds DCT output / (8 Q) half away from zero', () => {
    const q = makeQuantDivisors(new Uint8Array(64).fill(2)); // divisor 16
    const cases: Array<[number, number]> = [[0, 0], [7, 0], [8, 1], [23, 1], [24, 2], [-7, 0], [-8, -1], [-24, -2], [8192, 512]];
    for (const [t, expected] of cases) assert.equal(quantize(t, 3, q), expected, `t = ${t}`);
  });

  it('sets the dead zone to the largest magnitude that quantises to zero', () => {
    const q = makeQuantDivisors(scaleQuantTable(STD_LUMA_QUANT, 75));
    for (let n = 0; n < 64; n++) {
      assert.equal(quantize(q.deadZone[n], n, q), 0, `index ${n}`);
      assert.equal(quantize(-q.deadZone[n], n, q), 0, `index ${n}, negative`);
      assert.equal(quantize(q.deadZone[n] + 1, n, q), 1, `index ${n}`);
      assert.equal(quantize(-q.deadZone[n] - 1, n, q), -1, `index ${n}, negative`);
    }
  });
});

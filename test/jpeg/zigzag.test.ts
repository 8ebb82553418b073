import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NATURAL_TO_ZIGZAG, ZIGZAG, ZIGZAG_ROW_MARKS } from '../../src/jpeg/zigzag.js';

/** T.81 Figure A.6 rebuilt from its rule: walk the anti-diagonals, alternating direction. */
function zigzagByWalking(): number[] {
  const order: number[] = [];
  for (let sum = 0; sum <= 14; sum++) {
    const rows = [];
    for (let row = Math.max(0, sum - 7); row <= Math.min(7, sum); row++) rows.push(row);
    if (sum % 2 === 0) rows.reverse(); // even diagonals run from bottom-left to top-right
    for (const row of rows) order.push(row * 8 + (sum - row));
  }
  return order;
}

describe('zigzag', () => {
  it('matches the anti-diagonal walk of T.81 Figure A.6', () => {
    assert.deepEqual([...ZIGZAG], zigzagByWalking());
  });

  it('starts with the coefficients printed in Figure A.6', () => {
    assert.deepEqual([...ZIGZAG.subarray(0, 10)], [0, 1, 8, 16, 9, 2, 3, 10, 17, 24]);
    assert.equal(ZIGZAG[63], 63);
  });

  it('has NATURAL_TO_ZIGZAG as its inverse permutation', () => {
    for (let k = 0; k < 64; k++) assert.equal(NATURAL_TO_ZIGZAG[ZIGZAG[k]], k, `position ${k}`);
    assert.equal(new Set(ZIGZAG).size, 64);
  });

  it('moves each row of natural-order marks to the zig-zag positions of its coefficients', () => {
    for (let row = 0; row < 8; row++) {
      for (let byte = 0; byte < 256; byte++) {
        const expected = [0, 0];
        for (let column = 0; column < 8; column++) {
          if (byte & (1 << column)) expected[NATURAL_TO_ZIGZAG[row * 8 + column] >> 5] |= 1 << (NATURAL_TO_ZIGZAG[row * 8 + column] & 31);
        }
        const i = 2 * (row * 256 + byte);
        assert.deepEqual([ZIGZAG_ROW_MARKS[i], ZIGZAG_ROW_MARKS[i + 1]], expected, `row ${row}, byte ${byte}`);
      }
    }
  });
});

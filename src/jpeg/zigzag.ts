/**
 * Zig-zag sequence of the 64 DCT coefficients (ITU-T T.81 Figure A.6).
 *
 * `ZIGZAG[k]` is the natural (row-major, `row * 8 + column`) index of the
 * coefficient sent k-th. Quantisation tables in DQT and coefficients in the
 * scan are both sent in this order (T.81 B.2.4.1, F.1.1.5).
 */
export const ZIGZAG: Readonly<Uint8Array> = Uint8Array.from([
  0, 1, 8, 16, 9, 2, 3, 10,
  17, 24, 32, 25, 18, 11, 4, 5,
  12, 19, 26, 33, 40, 48, 41, 34,
  27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36,
  29, 22, 15, 23, 30, 37, 44, 51,
  58, 59, 52, 45, 38, 31, 39, 46,
  53, 60, 61, 54, 47, 55, 62, 63,
]);

/**
 * Inverse of {@link ZIGZAG}: `NATURAL_TO_ZIGZAG[n]` is the position in the
 * zig-zag sequence of the coefficient at natural index n.
 */
export const NATURAL_TO_ZIGZAG: Readonly<Uint8Array> = invert(ZIGZAG);

function invert(order: Uint8Array): Uint8Array {
  const inverse = new Uint8Array(64);
  for (let k = 0; k < 64; k++) inverse[order[k]!] = k;
  return inverse;
}

/**
 * Marks of a block's coefficients moved from natural to zig-zag order, one
 * row (8 marks, one byte) at a time: for row r and byte b, entry
 * `2 * (r * 256 + b)` holds the marks of zig-zag positions 0..31 and the next
 * entry those of 32..63, bit k (or k - 32) set when b has bit c set and
 * coefficient r * 8 + c sits at position k. Sixteen reads move 64 marks.
 */
export const ZIGZAG_ROW_MARKS: Readonly<Int32Array> = rowMarks(NATURAL_TO_ZIGZAG);

function rowMarks(position: Uint8Array): Int32Array {
  const marks = new Int32Array(8 * 256 * 2);
  for (let row = 0; row < 8; row++) {
    for (let byte = 0; byte < 256; byte++) {
      for (let column = 0; column < 8; column++) {
        if ((byte & (1 << column)) === 0) continue;
        const k = position[row * 8 + column]!;
        const slot = 2 * (row * 256 + byte) + (k >> 5);
        marks[slot] = marks[slot]! | (1 << (k & 31));
      }
    }
  }
  return marks;
}

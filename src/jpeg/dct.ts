/**
 * Accurate integer forward DCT (T.81 A.3.3).
 *
 * The transform is the "accurate integer" one that libjpeg selects with
 * JDCT_ISLOW, its default: the Loeffler, Ligtenberg and Moschytz factorisation ("Practical fast 1-D DCT algorithms
 * with 11 multiplications", ICASSP 1989) applied to rows then columns, with
 * 13-bit fixed-point constants, rows scaled up by 2 extra bits and each
 * rounded result computed as (x + 2^(n-1)) >> n. Every step is integer, so the
 * output is bit-for-bit what any other implementation of the same arithmetic
 * produces. The result is 8 times the orthonormal 2-D DCT (T.81 A.3.3's
 * S(v,u)); that factor of 8 is folded into the quantisation divisor (see
 * quantize.ts), and the rounding is left to quantisation. The column pass
 * also marks which outputs lie beyond their quantisation dead zone, while
 * they are still in registers: entropy coding then visits only those.
 */
import { outside as outsideOfDeadZone } from './quantize.js';

/**
 * The dead-zone test, read as a module constant rather than through the import:
 * an imported binding is live, so the compiled column loop re-checked on every
 * iteration that it still held the same function.
 */
const outside = outsideOfDeadZone;

/** Fixed-point precision of the multipliers. */
const CONST_BITS = 13;
/** Extra precision kept between the row pass and the column pass. */
const PASS1_BITS = 2;

// round(c * 2^13) of the rotation constants of the LL&M flow graph, named by
// their real values (c = sqrt(2) * cos(k * pi / 16) combinations).
const FIX_0_298631336 = 2446;
const FIX_0_390180644 = 3196;
const FIX_0_541196100 = 4433;
const FIX_0_765366865 = 6270;
const FIX_0_899976223 = 7373;
const FIX_1_175875602 = 9633;
const FIX_1_501321110 = 12299;
const FIX_1_847759065 = 15137;
const FIX_1_961570560 = 16069;
const FIX_2_053119869 = 16819;
const FIX_2_562915447 = 20995;
const FIX_3_072711026 = 25172;

// Products use Math.imul, a 32-bit integer multiply: with 8-bit samples the row
// outputs stay within +-4096 and, bounding every term separately, the largest
// column-pass sum stays under 1.2e9 < 2^31, so Math.imul equals `*` here and
// lets the JIT skip overflow checks. The row outputs (13 bits and a sign) and
// the coefficients (within -8192..8128, the DC of all-0 and all-255 blocks)
// both fit the 16 bits of DctBlock's array, as libjpeg-turbo's SIMD code keeps
// them in 16-bit lanes; the unit tests pin the extremes.

/** Row pass: the multiplied outputs drop CONST_BITS - PASS1_BITS bits. */
const ROW_SHIFT = CONST_BITS - PASS1_BITS;
const ROW_ROUND = 1 << (ROW_SHIFT - 1);
/** Column pass: multiplied outputs drop CONST_BITS + PASS1_BITS bits... */
const COL_SHIFT = CONST_BITS + PASS1_BITS;
const COL_ROUND = 1 << (COL_SHIFT - 1);
/** ...and the two unmultiplied (even) outputs only PASS1_BITS. */
const COL_EVEN_ROUND = 1 << (PASS1_BITS - 1);

/**
 * Level shift (T.81 A.3.1): samples are centred by subtracting 128. In the
 * row pass it cancels in every difference, so it is applied once, to the row
 * sum that forms output 0 (8 samples * 128).
 */
const ROW_LEVEL_SHIFT = 8 * 128;

/**
 * One transformed block and what the transform needs: the scan owns one, so
 * blocks allocate nothing.
 */
export class DctBlock {
  /**
   * 8 times the orthonormal DCT, natural order: S(v,u) at v * 8 + u. The row
   * pass leaves its results here and the column pass transforms them in place,
   * as libjpeg's jfdctint does: one array for both passes is one set of checks
   * where a separate workspace cost V8 a second. 16 bits hold both passes'
   * results (below), and values read as 16-bit let the JIT drop the overflow
   * checks of the column pass's sums.
   */
  readonly coefficients = new Int16Array(64);
  /** Bit n set where coefficient n (0..31) lies beyond its dead zone. */
  marksLow = 0;
  /** Bit n - 32 set where coefficient n (32..63) lies beyond its dead zone. */
  marksHigh = 0;
}

/**
 * Transforms the 8x8 block of samples at byte `offset` of `src` (row stride
 * `stride`) into `block`: its coefficients, and its marks of the coefficients
 * whose magnitude exceeds `deadZone[n]` (natural order; see quantize.ts).
 *
 * The samples are read through a DataView, four to a 32-bit little-endian
 * load: each typed-array read costs V8 a bounds check and index arithmetic,
 * so two reads per row instead of eight take a fifth off the row pass.
 */
export function forwardDct(src: DataView, offset: number, stride: number, deadZone: Int32Array, block: DctBlock): void {
  rowPass(src, offset, stride, block.coefficients);
  columnPass(block.coefficients, deadZone, block);
}

/**
 * 1-D DCT of each row of samples into `data`; outputs keep PASS1_BITS extra bits.
 * The passes are consts, not function declarations: a declared function's
 * binding can be reassigned, so the compiled caller re-checked it per block.
 */
const rowPass = (src: DataView, offset: number, stride: number, data: Int16Array): void => {
  for (let row = 0, p = offset; row < 8; row++, p += stride) {
    // From the loop counter, so the JIT knows w + 7 < 64 and checks no sum for overflow.
    const w = row << 3;
    const left = src.getUint32(p, true), right = src.getUint32(p + 4, true);
    const d0 = left & 255, d1 = (left >>> 8) & 255, d2 = (left >>> 16) & 255, d3 = left >>> 24;
    const d4 = right & 255, d5 = (right >>> 8) & 255, d6 = (right >>> 16) & 255, d7 = right >>> 24;
    // Stage 1 butterflies.
    const tmp0 = d0 + d7, tmp7 = d0 - d7, tmp1 = d1 + d6, tmp6 = d1 - d6;
    const tmp2 = d2 + d5, tmp5 = d2 - d5, tmp3 = d3 + d4, tmp4 = d3 - d4;
    // Even part.
    const tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
    data[w] = (tmp10 + tmp11 - ROW_LEVEL_SHIFT) << PASS1_BITS;
    data[w + 4] = (tmp10 - tmp11) << PASS1_BITS;
    const e = Math.imul(tmp12 + tmp13, FIX_0_541196100);
    data[w + 2] = (e + Math.imul(tmp13, FIX_0_765366865) + ROW_ROUND) >> ROW_SHIFT;
    data[w + 6] = (e - Math.imul(tmp12, FIX_1_847759065) + ROW_ROUND) >> ROW_SHIFT;
    // Odd part: z5 is the rotation shared by the four outputs, z1..z4 the cross terms.
    const z5 = Math.imul(tmp4 + tmp6 + tmp5 + tmp7, FIX_1_175875602);
    const z1 = Math.imul(tmp4 + tmp7, -FIX_0_899976223);
    const z2 = Math.imul(tmp5 + tmp6, -FIX_2_562915447);
    const z3 = Math.imul(tmp4 + tmp6, -FIX_1_961570560) + z5;
    const z4 = Math.imul(tmp5 + tmp7, -FIX_0_390180644) + z5;
    data[w + 7] = (Math.imul(tmp4, FIX_0_298631336) + z1 + z3 + ROW_ROUND) >> ROW_SHIFT;
    data[w + 5] = (Math.imul(tmp5, FIX_2_053119869) + z2 + z4 + ROW_ROUND) >> ROW_SHIFT;
    data[w + 3] = (Math.imul(tmp6, FIX_3_072711026) + z2 + z3 + ROW_ROUND) >> ROW_SHIFT;
    data[w + 1] = (Math.imul(tmp7, FIX_1_501321110) + z1 + z4 + ROW_ROUND) >> ROW_SHIFT;
  }
};

/**
 * 1-D DCT of each column of the row results, in place, the same flow graph as
 * the row pass; the extra bits are removed here. The columns are a loop here rather
 * than a call each: eight calls per block cost a tenth of the transform.
 * Column c's eight marks land at bits c, c + 8, c + 16, c + 24 of each mark
 * word: one shift by c places four of them.
 */
const columnPass = (data: Int16Array, deadZone: Int32Array, block: DctBlock): void => {
  let low = 0;
  let high = 0;
  for (let c = 0; c < 8; c++) {
    const d0 = data[c]!, d1 = data[c + 8]!, d2 = data[c + 16]!, d3 = data[c + 24]!;
    const d4 = data[c + 32]!, d5 = data[c + 40]!, d6 = data[c + 48]!, d7 = data[c + 56]!;
    const tmp0 = d0 + d7, tmp7 = d0 - d7, tmp1 = d1 + d6, tmp6 = d1 - d6;
    const tmp2 = d2 + d5, tmp5 = d2 - d5, tmp3 = d3 + d4, tmp4 = d3 - d4;
    const tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3, tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
    // Each output is stored and marked as soon as it is known, so that few
    // values are live at once: with all eight held to the end, the JIT ran
    // out of registers and spilled.
    const o0 = (tmp10 + tmp11 + COL_EVEN_ROUND) >> PASS1_BITS;
    data[c] = o0;
    let lowMarks = outside(o0, deadZone[c]!);
    const o4 = (tmp10 - tmp11 + COL_EVEN_ROUND) >> PASS1_BITS;
    data[c + 32] = o4;
    let highMarks = outside(o4, deadZone[c + 32]!);
    const e = Math.imul(tmp12 + tmp13, FIX_0_541196100);
    const o2 = (e + Math.imul(tmp13, FIX_0_765366865) + COL_ROUND) >> COL_SHIFT;
    data[c + 16] = o2;
    lowMarks |= outside(o2, deadZone[c + 16]!) << 16;
    const o6 = (e - Math.imul(tmp12, FIX_1_847759065) + COL_ROUND) >> COL_SHIFT;
    data[c + 48] = o6;
    highMarks |= outside(o6, deadZone[c + 48]!) << 16;
    const z5 = Math.imul(tmp4 + tmp6 + tmp5 + tmp7, FIX_1_175875602);
    const z1 = Math.imul(tmp4 + tmp7, -FIX_0_899976223);
    const z2 = Math.imul(tmp5 + tmp6, -FIX_2_562915447);
    const z3 = Math.imul(tmp4 + tmp6, -FIX_1_961570560) + z5;
    const z4 = Math.imul(tmp5 + tmp7, -FIX_0_390180644) + z5;
    const o7 = (Math.imul(tmp4, FIX_0_298631336) + z1 + z3 + COL_ROUND) >> COL_SHIFT;
    data[c + 56] = o7;
    highMarks |= outside(o7, deadZone[c + 56]!) << 24;
    const o5 = (Math.imul(tmp5, FIX_2_053119869) + z2 + z4 + COL_ROUND) >> COL_SHIFT;
    data[c + 40] = o5;
    highMarks |= outside(o5, deadZone[c + 40]!) << 8;
    const o3 = (Math.imul(tmp6, FIX_3_072711026) + z2 + z3 + COL_ROUND) >> COL_SHIFT;
    data[c + 24] = o3;
    lowMarks |= outside(o3, deadZone[c + 24]!) << 24;
    const o1 = (Math.imul(tmp7, FIX_1_501321110) + z1 + z4 + COL_ROUND) >> COL_SHIFT;
    data[c + 8] = o1;
    lowMarks |= outside(o1, deadZone[c + 8]!) << 8;
    low |= lowMarks << c;
    high |= highMarks << c;
  }
  block.marksLow = low;
  block.marksHigh = high;
};

/**
 * The sample value if all 64 samples of the block at word `index` of `words`
 * (rows `rowWords` apart) are equal, else -1. Flat areas are common in
 * posters, and such a block needs no transform: see {@link uniformBlockDc}.
 * Four samples are compared at a time, as one 32-bit word against the block's
 * first word, which must itself be one value repeated (a test that holds in
 * either byte order). The bottom row goes first: a vertical gradient, the
 * posters' background, changes between rows, and is turned away at once.
 * Int32Array reads rather than DataView ones: the view's checks would be
 * repeated in the loop.
 */
export function uniformSample(words: Int32Array, index: number, rowWords: number): number {
  const first = words[index]!;
  const value = first & 255;
  if (first !== Math.imul(value, 0x01010101)) return -1;
  for (let p = index + 7 * rowWords; p >= index; p -= rowWords) {
    if (words[p] !== first || words[p + 1] !== first) return -1;
  }
  return value;
}

/**
 * Exact {@link forwardDct} output of a block whose samples all equal `s`:
 * every difference in the butterflies is 0, so every AC output is
 * (0 + round) >> n = 0; the row pass gives (8s - 1024) << 2 as each row's
 * output 0, and the column pass (8 * 4 * (8s - 1024) + 2) >> 2 = 64 (s - 128)
 * as the DC. The unit tests check this against the full transform.
 */
export function uniformBlockDc(s: number): number {
  return 64 * (s - 128);
}

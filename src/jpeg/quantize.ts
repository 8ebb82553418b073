/**
 * Quantisation tables: the example tables of ITU-T T.81 Annex K.1, the IJG
 * quality scaling that libjpeg documents for `jpeg_set_quality`, and the
 * exact integer division used to quantise DCT output.
 */
import { ZIGZAG } from './zigzag.js';

/** T.81 Annex K.1, Table K.1: luminance quantisation table, natural order. */
export const STD_LUMA_QUANT: readonly number[] = Object.freeze([
  16, 11, 10, 16, 24, 40, 51, 61,
  12, 12, 14, 19, 26, 58, 60, 55,
  14, 13, 16, 24, 40, 57, 69, 56,
  14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77,
  24, 35, 55, 64, 81, 104, 113, 92,
  49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
]);

/** T.81 Annex K.1, Table K.2: chrominance quantisation table, natural order. */
export const STD_CHROMA_QUANT: readonly number[] = Object.freeze([
  17, 18, 24, 47, 99, 99, 99, 99,
  18, 21, 26, 66, 99, 99, 99, 99,
  24, 26, 56, 99, 99, 99, 99, 99,
  47, 66, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99,
]);

/**
 * IJG quality scaling (libjpeg.txt, `jpeg_quality_scaling`): a percentage
 * applied to the Annex K tables. Quality 50 gives 100 % (the tables as
 * printed), quality 100 gives 0 % (every entry clamps to 1), and below 50 the
 * factor is 5000 / quality with integer division.
 */
export function qualityScaleFactor(quality: number): number {
  return quality < 50 ? Math.trunc(5000 / quality) : 200 - quality * 2;
}

/**
 * Scales a base table (natural order) for a quality of 1..100. Each entry is
 * `(base * factor + 50) / 100` truncated, clamped to 1..255: the upper clamp
 * is what cjpeg's `-baseline` does, so every table fits 8-bit DQT precision
 * and the frame stays baseline (T.81 B.2.4.1, Pq = 0).
 */
export function scaleQuantTable(base: readonly number[], quality: number): Uint8Array {
  const factor = qualityScaleFactor(quality);
  const table = new Uint8Array(64);
  for (let i = 0; i < 64; i++) {
    const value = Math.trunc((base[i]! * factor + 50) / 100);
    table[i] = Math.min(255, Math.max(1, value));
  }
  return table;
}

/**
 * Largest magnitude-plus-rounding value that {@link QuantDivisors} must divide
 * exactly. The accurate DCT's output is 8 times the orthonormal DCT, so for
 * 8-bit samples |coefficient| <= 64 * 128 = 8192 (the DC of an all-zero
 * block); the rounding term is at most 8 * 255 / 2 = 1020. Both fit in 14 bits.
 */
export const QUANT_INPUT_BITS = 14;

/**
 * Per-coefficient constants, indexed by natural position n (row * 8 + column,
 * the DCT's output order), that quantise one DCT output t (T.81 A.3.4):
 *
 *   q(t) = sign(t) * floor((|t| + floor(d / 2)) / d),  d = 8 * Q[n]
 *
 * i.e. division by the table entry, rounded half away from zero; the 8 is the
 * scale the accurate integer DCT leaves on its output, folded into the
 * divisor. `deadZone` is the largest |t| that quantises to zero,
 * d - floor(d / 2) - 1: the DCT marks the outputs beyond it, so only those are
 * ever divided.
 *
 * The division is JavaScript's `/` truncated with `| 0`, exact for every
 * dividend below 2^14: if N / d is an integer, the quotient is exact; otherwise
 * N / d = m + f / d with 1 <= f <= d - 1, at least 1 / d >= 2^-11 below m + 1,
 * while the double rounding error is at most 2^-53 * N / d < 2^-39, so the
 * truncation gives m. The unit tests check every (d, dividend) pair. One
 * table read per coefficient instead of a multiplier, a shift and a rounding
 * term: on V8 the reads cost more than the divide.
 */
export interface QuantDivisors {
  readonly divisor: Int32Array;
  readonly deadZone: Int32Array;
  /**
   * Per zig-zag position k, the natural index n = ZIGZAG[k] in the low 8
   * bits and its divisor above them: what entropy coding needs of each
   * coefficient it codes, in one table read instead of two.
   */
  readonly zigzag: Int32Array;
}

/** Builds {@link QuantDivisors} for a natural-order quantisation table. */
export function makeQuantDivisors(table: Uint8Array): QuantDivisors {
  const divisor = new Int32Array(64);
  const deadZone = new Int32Array(64);
  for (let n = 0; n < 64; n++) {
    const d = table[n]! * 8;
    divisor[n] = d;
    deadZone[n] = d - (d >> 1) - 1;
  }
  const zigzag = new Int32Array(64);
  for (let k = 0; k < 64; k++) zigzag[k] = ZIGZAG[k]! | (divisor[ZIGZAG[k]!]! << 8);
  return { divisor, deadZone, zigzag };
}

/** Quantises one DCT output `t` at natural position `n` (the reference form of the hot loop in symbols.ts). */
export function quantize(t: number, n: number, q: QuantDivisors): number {
  return quantizeBy(t, q.divisor[n]!);
}

/** Quantises one DCT output `t` with divisor `d`: `quantize`'s arithmetic, for a divisor read already. */
export function quantizeBy(t: number, d: number): number {
  const level = ((Math.abs(t) + (d >> 1)) / d) | 0;
  return t < 0 ? -level | 0 : level; // | 0: no -0
}

/**
 * 1 if `v` lies outside [-limit, limit], else 0: then limit - v or limit + v
 * is negative, and the sign bit of their OR says so without a branch.
 */
export function outside(v: number, limit: number): number {
  return ((limit - v) | (limit + v)) >>> 31;
}

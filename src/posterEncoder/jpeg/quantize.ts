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
 * Per-coefficient constants, indexed by zig-zag position k, that quantise one
 * DCT output t (T.81 A.3.4):
 *
 *   q(t) = sign(t) * floor((|t| + floor(d / 2)) / d),  d = 8 * Q[k]
 *
 * i.e. division by the table entry, rounded half away from zero; the 8 is the
 * scale the accurate integer DCT leaves on its output, folded into the
 * divisor. The division is done as `((|t| + round) * multiplier) >> shift`,
 * which is exact for every dividend below 2^14 (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", 1994, theorem 4.2,
 * with N = 14, l = ceil(log2 d), m = ceil(2^(N+l) / d)); the unit tests check
 * every (d, dividend) pair. `deadZone` is the largest |t| that quantises to
 * zero, d - floor(d / 2) - 1, so the common zero case needs no multiplication.
 */
export interface QuantDivisors {
  readonly round: Int32Array;
  readonly multiplier: Int32Array;
  readonly shift: Int32Array;
  readonly deadZone: Int32Array;
}

/** Builds {@link QuantDivisors} for a natural-order quantisation table. */
export function makeQuantDivisors(table: Uint8Array): QuantDivisors {
  const round = new Int32Array(64);
  const multiplier = new Int32Array(64);
  const shift = new Int32Array(64);
  const deadZone = new Int32Array(64);
  for (let k = 0; k < 64; k++) {
    const divisor = table[ZIGZAG[k]!]! * 8;
    const l = 32 - Math.clz32(divisor - 1); // ceil(log2(divisor)), divisor >= 8
    const s = QUANT_INPUT_BITS + l;
    const half = divisor >> 1;
    round[k] = half;
    multiplier[k] = Math.ceil(2 ** s / divisor);
    shift[k] = s;
    deadZone[k] = divisor - half - 1;
  }
  return { round, multiplier, shift, deadZone };
}

/** Quantises one DCT output `t` at zig-zag position `k` (the reference form of the hot loop in symbols.ts). */
export function quantize(t: number, k: number, q: QuantDivisors): number {
  const magnitude = Math.abs(t);
  const level = ((magnitude + q.round[k]!) * q.multiplier[k]!) >> q.shift[k]!;
  return t < 0 ? -level | 0 : level; // | 0: no -0
}

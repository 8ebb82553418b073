/**
 * Linear gradients with ordered dithering. A dark two-colour gradient over 2,436 rows changes
 * by one 8-bit level every ~100 rows; rounded, that shows as bands. Adding an 8×8 Bayer
 * threshold before truncating keeps each 8×8 block's mean at the exact fractional value.
 */
import type { Canvas } from './canvas.js';
import type { Rgb } from './color.js';
import { wordView } from './words.js';

/** 8×8 Bayer matrix: thresholds 0..63, each once per 8×8 tile (Bayer 1973, recursive form). */
export const BAYER_8X8: Readonly<Uint8Array> = buildBayer();

function buildBayer(): Uint8Array {
  let matrix = [0];
  for (let size = 1; size < 8; size *= 2) {
    const next = new Array<number>(size * size * 4);
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const v = 4 * matrix[y * size + x]!;
        next[y * 2 * size + x] = v;
        next[y * 2 * size + x + size] = v + 2;
        next[(y + size) * 2 * size + x] = v + 3;
        next[(y + size) * 2 * size + x + size] = v + 1;
      }
    }
    matrix = next;
  }
  return Uint8Array.from(matrix);
}

/**
 * Where a gradient of `angle` degrees runs, CSS's convention (CSS Images 3, `linear-gradient()`):
 * the angle of the gradient line clockwise from "to top". The schema and docs/posters-and-api.md
 * ("Posters") say this text.
 */
export const GRADIENT_ANGLE_CONVENTION = '0 = bottom to top, 90 = left to right, 180 = top to bottom, 270 = right to left, as CSS linear-gradient()';

/**
 * Fills the canvas (the rows it holds) with a gradient from `from` to `to` along `angle`
 * degrees, CSS style (see GRADIENT_ANGLE_CONVENTION), and the gradient line is long enough for
 * the corners to get exactly the end colours.
 */
export function fillLinearGradient(canvas: Canvas, from: Rgb, to: Rgb, angleDegrees: number): void {
  const { width, height, data, top } = canvas;
  const radians = (angleDegrees * Math.PI) / 180;
  const dx = Math.sin(radians);
  const dy = -Math.cos(radians);
  // CSS Images 3, "linear-gradient() syntax": the gradient line's length.
  const length = Math.abs(width * dx) + Math.abs(height * dy);
  // t = 0.5 + ((px − cx)·dx + (py − cy)·dy) / length at pixel centres. The CSS gradient line
  // puts every pixel centre inside [0, 1], so no clamping is needed.
  const stepT = dx / length;
  const dr = to.r - from.r;
  const dg = to.g - from.g;
  const db = to.b - from.b;
  const row: GradientRow = {
    data,
    words: wordView(data),
    thresholds: new Float64Array(8),
    rStep: dr * stepT,
    gStep: dg * stepT,
    bStep: db * stepT,
  };
  for (let y = top; y < canvas.bottom; y++) {
    const t0 = 0.5 + ((0.5 - width / 2) * dx + (y + 0.5 - height / 2) * dy) / length;
    // floor(v + θ) with θ = (Bayer + 0.5) / 64: ordered dithering, whose mean over an 8×8 tile
    // is v.
    for (let x = 0; x < 8; x++) row.thresholds[x] = (BAYER_8X8[((y & 7) << 3) | x]! + 0.5) / 64;
    fillRow(row, (y - top) * width, width, from.r + dr * t0, from.g + dg * t0, from.b + db * t0);
  }
}

/** What every row of one gradient shares. */
interface GradientRow {
  readonly data: Uint8Array;
  /** `data` as little-endian 32-bit words, or undefined where it cannot be (see wordView). */
  readonly words: Uint32Array | undefined;
  /** The row's 8 dithering thresholds, by x mod 8. */
  readonly thresholds: Float64Array;
  readonly rStep: number;
  readonly gStep: number;
  readonly bStep: number;
}

/**
 * One row from pixel `first` (`width` pixels), channels starting at r, g, b and growing by the
 * steps per pixel. Each value is floor(v + θ): the running sums and their truncation are the
 * same for every pixel whichever way its bytes are stored, so the word path and the byte path
 * give the same pixels. Word stores: 8 pixels are 24 bytes, 6 words, one store each instead of
 * 24 byte stores with their bounds checks.
 */
function fillRow(row: GradientRow, first: number, width: number, r: number, g: number, b: number): void {
  const { data, words, thresholds: h, rStep, gStep, bStep } = row;
  let x = 0;
  let i = first * 3;
  if (words !== undefined) {
    // Bytes up to a pixel whose index is a multiple of 4: its offset, a multiple of 12, is a
    // word boundary.
    const head = Math.min(width, (4 - (first & 3)) & 3);
    for (; x < head; x++, i += 3) {
      const threshold = h[x & 7]!;
      // | 0 truncates, which is floor for v + θ in [0, 256); so would a byte store.
      data[i] = (r + threshold) | 0;
      data[i + 1] = (g + threshold) | 0;
      data[i + 2] = (b + threshold) | 0;
      r += rStep;
      g += gStep;
      b += bStep;
    }
    const h0 = h[x & 7]!, h1 = h[(x + 1) & 7]!, h2 = h[(x + 2) & 7]!, h3 = h[(x + 3) & 7]!;
    const h4 = h[(x + 4) & 7]!, h5 = h[(x + 5) & 7]!, h6 = h[(x + 6) & 7]!, h7 = h[(x + 7) & 7]!;
    let w = i >> 2;
    for (; x + 8 <= width; x += 8, w += 6) {
      const r0 = (r + h0) | 0, g0 = (g + h0) | 0, b0 = (b + h0) | 0;
      r += rStep; g += gStep; b += bStep;
      const r1 = (r + h1) | 0, g1 = (g + h1) | 0, b1 = (b + h1) | 0;
      r += rStep; g += gStep; b += bStep;
      const r2 = (r + h2) | 0, g2 = (g + h2) | 0, b2 = (b + h2) | 0;
      r += rStep; g += gStep; b += bStep;
      const r3 = (r + h3) | 0, g3 = (g + h3) | 0, b3 = (b + h3) | 0;
      r += rStep; g += gStep; b += bStep;
      words[w] = r0 | (g0 << 8) | (b0 << 16) | (r1 << 24);
      words[w + 1] = g1 | (b1 << 8) | (r2 << 16) | (g2 << 24);
      words[w + 2] = b2 | (r3 << 8) | (g3 << 16) | (b3 << 24);
      const r4 = (r + h4) | 0, g4 = (g + h4) | 0, b4 = (b + h4) | 0;
      r += rStep; g += gStep; b += bStep;
      const r5 = (r + h5) | 0, g5 = (g + h5) | 0, b5 = (b + h5) | 0;
      r += rStep; g += gStep; b += bStep;
      const r6 = (r + h6) | 0, g6 = (g + h6) | 0, b6 = (b + h6) | 0;
      r += rStep; g += gStep; b += bStep;
      const r7 = (r + h7) | 0, g7 = (g + h7) | 0, b7 = (b + h7) | 0;
      r += rStep; g += gStep; b += bStep;
      words[w + 3] = r4 | (g4 << 8) | (b4 << 16) | (r5 << 24);
      words[w + 4] = g5 | (b5 << 8) | (r6 << 16) | (g6 << 24);
      words[w + 5] = b6 | (r7 << 8) | (g7 << 16) | (b7 << 24);
    }
    i = w << 2;
  }
  for (; x < width; x++, i += 3) {
    const threshold = h[x & 7]!;
    data[i] = (r + threshold) | 0;
    data[i + 1] = (g + threshold) | 0;
    data[i + 2] = (b + threshold) | 0;
    r += rStep;
    g += gStep;
    b += bStep;
  }
}

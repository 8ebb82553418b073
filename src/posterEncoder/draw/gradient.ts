/**
 * Linear gradients with ordered dithering. A dark two-colour gradient over 2,436 rows changes
 * by one 8-bit level every ~100 rows; rounded, that shows as bands. Adding an 8×8 Bayer
 * threshold before truncating keeps each 8×8 block's mean at the exact fractional value.
 */
import type { Canvas } from './canvas.js';
import type { Rgb } from './color.js';

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
 * the angle of the gradient line clockwise from "to top". The schema and README say this text.
 */
export const GRADIENT_ANGLE_CONVENTION = '0 = bottom to top, 90 = left to right, 180 = top to bottom, 270 = right to left, as CSS linear-gradient()';

/**
 * Fills the canvas with a gradient from `from` to `to` along `angle` degrees, CSS style (see
 * GRADIENT_ANGLE_CONVENTION), and the gradient line is long enough for the corners to get
 * exactly the end colours.
 */
export function fillLinearGradient(canvas: Canvas, from: Rgb, to: Rgb, angleDegrees: number): void {
  const { width, height, data } = canvas;
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
  // floor(v + θ) with θ = (Bayer + 0.5) / 64: ordered dithering, whose mean over an 8×8 tile
  // is v. Stores into the byte array truncate, which is floor for v + θ in [0, 256).
  const thresholds = new Float64Array(64);
  for (let i = 0; i < 64; i++) thresholds[i] = (BAYER_8X8[i]! + 0.5) / 64;

  let i = 0;
  for (let y = 0; y < height; y++) {
    const t0 = 0.5 + ((0.5 - width / 2) * dx + (y + 0.5 - height / 2) * dy) / length;
    let r = from.r + dr * t0;
    let g = from.g + dg * t0;
    let b = from.b + db * t0;
    const rStep = dr * stepT;
    const gStep = dg * stepT;
    const bStep = db * stepT;
    const row = (y & 7) << 3;
    for (let x = 0; x < width; x++, i += 3) {
      const threshold = thresholds[row | (x & 7)]!;
      data[i] = r + threshold;
      data[i + 1] = g + threshold;
      data[i + 2] = b + threshold;
      r += rStep;
      g += gStep;
      b += bStep;
    }
  }
}

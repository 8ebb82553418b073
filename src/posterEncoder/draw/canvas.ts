/**
 * An opaque 8-bit RGB canvas (rows top to bottom, 3 bytes a pixel: what the JPEG encoder takes)
 * with source-over compositing of a colour through a coverage mask. Blending is done in sRGB
 * values, as browsers and stb_truetype users do for text.
 */
import type { Rgb } from './color.js';
import type { CoverageMask } from './rasterize.js';

export class Canvas {
  readonly width: number;
  readonly height: number;
  /** `width * height * 3` bytes, R G B. */
  readonly data: Uint8Array;

  constructor(width: number, height: number) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new TypeError(`canvas size ${width}x${height} is not positive integers`);
    }
    this.width = width;
    this.height = height;
    this.data = new Uint8Array(width * height * 3);
  }

  /** The whole canvas as a clip rectangle. */
  get bounds(): { x: number; y: number; width: number; height: number } {
    return { x: 0, y: 0, width: this.width, height: this.height };
  }

  /** The pixel at (x, y) as [r, g, b]. */
  pixel(x: number, y: number): [number, number, number] {
    const i = (y * this.width + x) * 3;
    return [this.data[i]!, this.data[i + 1]!, this.data[i + 2]!];
  }

  /** Sets every pixel to one colour. */
  clear(color: Rgb): void {
    const d = this.data;
    for (let i = 0; i < d.length; i += 3) {
      d[i] = color.r;
      d[i + 1] = color.g;
      d[i + 2] = color.b;
    }
  }

  /**
   * Composites `color` at `opacity` (0..1) through the mask's coverage: dst += (src − dst)·α.
   * The mask lies at (mask.x + dx, mask.y + dy): text places one cached glyph mask at every pen
   * position without copying it into a new object.
   */
  fillMask(mask: CoverageMask, color: Rgb, opacity = 1, dx = 0, dy = 0): void {
    const { r, g, b } = color;
    const d = this.data;
    // Read once: a property read in the loop costs more than the blend.
    const { width: maskWidth, data: coverage } = mask;
    const maskX = mask.x + dx;
    const maskY = mask.y + dy;
    const x0 = Math.max(0, maskX);
    const y0 = Math.max(0, maskY);
    const x1 = Math.min(this.width, maskX + maskWidth);
    const y1 = Math.min(this.height, maskY + mask.height);
    for (let y = y0; y < y1; y++) {
      let m = (y - maskY) * maskWidth + (x0 - maskX);
      let i = (y * this.width + x0) * 3;
      for (let x = x0; x < x1; x++, m++, i += 3) {
        const a = coverage[m]! * opacity;
        if (a > 0) blendPixel(d, i, r, g, b, a);
      }
    }
  }

  /**
   * `fillMask` fused with the row sums of an accumulation buffer (`accumulatePath`): one pass
   * over a big shape instead of two. Between edges the buffer holds zeros, the sum stays put and
   * every pixel of the run gets the same α: long runs inside a translucent shape go through a
   * table of the blend for that α (the same formula, so the same bytes) instead of per-pixel
   * arithmetic, and runs outside the shape are skipped whole.
   */
  fillAccumulated(acc: CoverageMask, color: Rgb, opacity = 1): void {
    const { r, g, b } = color;
    const d = this.data;
    const x1 = Math.min(this.width, acc.x + acc.width);
    const y0 = Math.max(0, acc.y);
    const y1 = Math.min(this.height, acc.y + acc.height);
    if (acc.x < 0) throw new TypeError('fillAccumulated needs a buffer clipped to the canvas');
    const deltas = acc.data;
    const blend = new BlendTable(color);
    for (let y = y0; y < y1; y++) {
      let m = (y - acc.y) * acc.width;
      const rowEnd = m + (x1 - acc.x);
      let i = (y * this.width + acc.x) * 3;
      let sum = 0;
      let a = 0;
      while (m < rowEnd) {
        const delta = deltas[m]!;
        if (delta !== 0) {
          sum += delta;
          const c = sum < 0 ? -sum : sum;
          a = (c > 1 ? 1 : c) * opacity;
          if (a > 0) blendPixel(d, i, r, g, b, a);
          m++;
          i += 3;
          continue;
        }
        let end = m + 1;
        while (end < rowEnd && deltas[end] === 0) end++;
        const n = end - m;
        if (a > 0) {
          if (a >= 1 || n < BlendTable.MIN_RUN) {
            for (let k = 0; k < n; k++, i += 3) blendPixel(d, i, r, g, b, a);
          } else {
            blend.apply(d, i, n, a);
            i += 3 * n;
          }
        } else {
          i += 3 * n;
        }
        m = end;
      }
    }
  }

  /**
   * Composites `color` over a separable coverage: pixel (x, y) gets α = columns[x − x0] ·
   * rows[y − y0] · opacity (an axis-aligned rectangle's exact area coverage).
   */
  fillSeparable(x0: number, columns: Float32Array, y0: number, rows: Float32Array, color: Rgb, opacity = 1): void {
    const { r, g, b } = color;
    const d = this.data;
    const xs = Math.max(0, x0);
    const xe = Math.min(this.width, x0 + columns.length);
    const ys = Math.max(0, y0);
    const ye = Math.min(this.height, y0 + rows.length);
    for (let y = ys; y < ye; y++) {
      const rowAlpha = rows[y - y0]! * opacity;
      let i = (y * this.width + xs) * 3;
      for (let x = xs; x < xe; x++, i += 3) {
        const a = columns[x - x0]! * rowAlpha;
        if (a >= 1) {
          d[i] = r;
          d[i + 1] = g;
          d[i + 2] = b;
        } else if (a > 0) {
          // Stays within 0..255 for 0 < α < 1; + 0.5 and truncation round to nearest.
          const dr = d[i]!, dg = d[i + 1]!, db = d[i + 2]!;
          d[i] = dr + (r - dr) * a + 0.5;
          d[i + 1] = dg + (g - dg) * a + 0.5;
          d[i + 2] = db + (b - db) * a + 0.5;
        }
      }
    }
  }
}

/**
 * Source-over of (r, g, b) at α onto the pixel at byte `i`: dst += (src − dst)·α. Stays within
 * 0..255 for 0 < α < 1; + 0.5 and the byte store's truncation round to nearest.
 */
function blendPixel(d: Uint8Array, i: number, r: number, g: number, b: number, a: number): void {
  if (a >= 1) {
    d[i] = r;
    d[i + 1] = g;
    d[i + 2] = b;
  } else {
    const dr = d[i]!, dg = d[i + 1]!, db = d[i + 2]!;
    d[i] = dr + (r - dr) * a + 0.5;
    d[i + 1] = dg + (g - dg) * a + 0.5;
    d[i + 2] = db + (b - db) * a + 0.5;
  }
}

/**
 * The blend of one colour at one α as a table: result by channel and destination byte, filled
 * by `blendPixel`'s formula, so a pixel looked up is the pixel computed. Refilled only when α
 * changes: inside a shape it stays the same from row to row.
 */
class BlendTable {
  /** Runs shorter than this are cheaper to blend than to refill the table for. */
  static readonly MIN_RUN = 48;
  readonly #table = new Uint8Array(768);
  readonly #color: Rgb;
  #alpha = NaN;

  constructor(color: Rgb) {
    this.#color = color;
  }

  /** Blends `n` pixels from byte `i` at α (0 < α < 1). */
  apply(d: Uint8Array, i: number, n: number, a: number): void {
    const t = this.#table;
    if (a !== this.#alpha) this.#fill(a);
    for (const end = i + 3 * n; i < end; i += 3) {
      d[i] = t[d[i]!]!;
      d[i + 1] = t[256 + d[i + 1]!]!;
      d[i + 2] = t[512 + d[i + 2]!]!;
    }
  }

  #fill(a: number): void {
    const t = this.#table;
    const { r, g, b } = this.#color;
    for (let v = 0; v < 256; v++) {
      t[v] = v + (r - v) * a + 0.5;
      t[256 + v] = v + (g - v) * a + 0.5;
      t[512 + v] = v + (b - v) * a + 0.5;
    }
    this.#alpha = a;
  }
}

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

  /** Composites `color` at `opacity` (0..1) through the mask's coverage: dst += (src − dst)·α. */
  fillMask(mask: CoverageMask, color: Rgb, opacity = 1): void {
    const { r, g, b } = color;
    const d = this.data;
    const x0 = Math.max(0, mask.x);
    const y0 = Math.max(0, mask.y);
    const x1 = Math.min(this.width, mask.x + mask.width);
    const y1 = Math.min(this.height, mask.y + mask.height);
    for (let y = y0; y < y1; y++) {
      let m = (y - mask.y) * mask.width + (x0 - mask.x);
      let i = (y * this.width + x0) * 3;
      for (let x = x0; x < x1; x++, m++, i += 3) {
        const a = mask.data[m]! * opacity;
        if (a <= 0) continue;
        if (a >= 1) {
          d[i] = r;
          d[i + 1] = g;
          d[i + 2] = b;
        } else {
          // Stays within 0..255 for 0 < α < 1; + 0.5 and truncation round to nearest.
          const dr = d[i]!, dg = d[i + 1]!, db = d[i + 2]!;
          d[i] = dr + (r - dr) * a + 0.5;
          d[i + 1] = dg + (g - dg) * a + 0.5;
          d[i + 2] = db + (b - db) * a + 0.5;
        }
      }
    }
  }

  /**
   * `fillMask` fused with the row sums of an accumulation buffer (`accumulatePath`): one pass
   * over a big shape instead of two.
   */
  fillAccumulated(acc: CoverageMask, color: Rgb, opacity = 1): void {
    const { r, g, b } = color;
    const d = this.data;
    const x1 = Math.min(this.width, acc.x + acc.width);
    const y0 = Math.max(0, acc.y);
    const y1 = Math.min(this.height, acc.y + acc.height);
    if (acc.x < 0) throw new TypeError('fillAccumulated needs a buffer clipped to the canvas');
    for (let y = y0; y < y1; y++) {
      let m = (y - acc.y) * acc.width;
      let i = (y * this.width + acc.x) * 3;
      let sum = 0;
      for (let x = acc.x; x < x1; x++, m++, i += 3) {
        sum += acc.data[m]!;
        const c = sum < 0 ? -sum : sum;
        const a = (c > 1 ? 1 : c) * opacity;
        if (a <= 0) continue;
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

/**
 * An opaque 8-bit RGB canvas (rows top to bottom, 3 bytes a pixel: what the JPEG encoder takes)
 * with source-over compositing of a colour through a coverage mask. Blending is done in sRGB
 * values, as browsers and stb_truetype users do for text.
 *
 * A canvas may hold only a band of its rows (a window, moved with `showRows`): every operation
 * then changes only the rows held, each exactly as it would on the whole canvas, so a picture
 * drawn band by band (render/draw/paint.ts) has the bytes of the picture drawn whole.
 */
import type { Rgb } from './color.js';
import type { CoverageMask } from './rasterize.js';
import { wordView } from './words.js';

export class Canvas {
  readonly width: number;
  /** The picture's height; `rows` of them are held from `top`. */
  readonly height: number;
  /** Rows `data` holds: all of them, or a band's. */
  readonly rows: number;
  /** `width * rows * 3` bytes, R G B: rows `top` to `bottom - 1`. */
  readonly data: Uint8Array;
  /** `data` as little-endian words where the machine allows (see wordView). */
  readonly #words: Uint32Array | undefined;
  #top = 0;
  #bottom: number;
  /** Where shapes accumulate a band of coverage before compositing it here (see coverageScratch). */
  #scratch = new Float32Array(0);

  /** A canvas holding every row, or with `rows`, a band of that many, at the top to start with. */
  constructor(width: number, height: number, rows = height) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new TypeError(`canvas size ${width}x${height} is not positive integers`);
    }
    if (!Number.isInteger(rows) || rows < 1 || rows > height) {
      throw new TypeError(`a canvas band of ${rows} rows does not fit 1 to ${height}`);
    }
    this.width = width;
    this.height = height;
    this.rows = rows;
    this.data = new Uint8Array(width * rows * 3);
    this.#words = wordView(this.data);
    this.#bottom = rows;
  }

  /** The first row held. */
  get top(): number {
    return this.#top;
  }

  /** The row after the last one held. */
  get bottom(): number {
    return this.#bottom;
  }

  /**
   * Holds `count` rows from `top` on (as many as the band holds, by default; never past the
   * picture's last row), at the start of `data`: drawing then changes those rows only. The
   * band's bytes are not cleared, so the next drawing must cover every pixel (a poster's
   * background does).
   */
  showRows(top: number, count = this.rows): void {
    if (!Number.isInteger(top) || top < 0 || top >= this.height) {
      throw new RangeError(`row ${top} is not within 0 to ${this.height - 1}`);
    }
    if (!Number.isInteger(count) || count < 1 || count > this.rows) {
      throw new RangeError(`${count} rows do not fit a band of ${this.rows}`);
    }
    this.#top = top;
    this.#bottom = Math.min(this.height, top + count);
  }

  /**
   * A scratch buffer of at least `length` coverage values, for a shape to accumulate a band of
   * its coverage in just before compositing it onto this canvas: a picture's shapes share it,
   * where a buffer each (72 KB for a poster-wide shape) stayed alive until a full collection,
   * 32 of them a render for the largest spec (peak RSS 97-103 MiB against 85 over 8 renders).
   */
  coverageScratch(length: number): Float32Array {
    if (this.#scratch.length < length) this.#scratch = new Float32Array(length);
    return this.#scratch;
  }

  /** The whole picture as a clip rectangle (the same for every band, so shapes rasterise alike). */
  get bounds(): { x: number; y: number; width: number; height: number } {
    return { x: 0, y: 0, width: this.width, height: this.height };
  }

  /** The pixel at (x, y), a row held, as [r, g, b]. */
  pixel(x: number, y: number): [number, number, number] {
    if (y < this.#top || y >= this.bottom) throw new RangeError(`row ${y} is not held (rows ${this.#top} to ${this.bottom - 1})`);
    const i = ((y - this.#top) * this.width + x) * 3;
    return [this.data[i]!, this.data[i + 1]!, this.data[i + 2]!];
  }

  /** Sets every pixel held to one colour. */
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
    const top = this.#top;
    const x0 = Math.max(0, maskX);
    const y0 = Math.max(top, maskY);
    const x1 = Math.min(this.width, maskX + maskWidth);
    const y1 = Math.min(this.bottom, maskY + mask.height);
    for (let y = y0; y < y1; y++) {
      let m = (y - maskY) * maskWidth + (x0 - maskX);
      let i = ((y - top) * this.width + x0) * 3;
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
    this.#fillAccumulated(acc, color, opacity, new BlendTable(color, this.#words));
  }

  /**
   * `fillAccumulated` for each band of one shape (a consumer for `BandedPath`), with one
   * set of blend tables for all of them: a table made for a band's α serves the rows of the next
   * bands too, instead of being filled again for every band of 16 rows (400 tables of 768 bytes
   * a typical poster's three circles, a fifth of their compositing time, down to ~20).
   */
  accumulatedFill(color: Rgb, opacity = 1): (band: CoverageMask) => void {
    const blend = new BlendTable(color, this.#words);
    return (band) => this.#fillAccumulated(band, color, opacity, blend);
  }

  #fillAccumulated(acc: CoverageMask, color: Rgb, opacity: number, blend: BlendTable): void {
    const { r, g, b } = color;
    const d = this.data;
    const top = this.#top;
    const x1 = Math.min(this.width, acc.x + acc.width);
    const y0 = Math.max(top, acc.y);
    const y1 = Math.min(this.bottom, acc.y + acc.height);
    if (acc.x < 0) throw new TypeError('fillAccumulated needs a buffer clipped to the canvas');
    const deltas = acc.data;
    for (let y = y0; y < y1; y++) {
      let m = (y - acc.y) * acc.width;
      const rowEnd = m + (x1 - acc.x);
      let i = ((y - top) * this.width + acc.x) * 3;
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
        const end = zeroRunEnd(deltas, m + 1, rowEnd);
        const n = end - m;
        if (a >= BlendTable.INVISIBLE_ALPHA) {
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
    const top = this.#top;
    const ys = Math.max(top, y0);
    const ye = Math.min(this.bottom, y0 + rows.length);
    for (let y = ys; y < ye; y++) {
      const rowAlpha = rows[y - y0]! * opacity;
      let i = ((y - top) * this.width + xs) * 3;
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
 * The first index from `m` (up to `end`) whose delta is not zero. Four at a time: the loop's
 * own checks (the array's map, the stack guard) then come once per four entries, not per entry.
 */
function zeroRunEnd(deltas: Float32Array, m: number, end: number): number {
  while (m + 4 <= end && deltas[m] === 0 && deltas[m + 1] === 0 && deltas[m + 2] === 0 && deltas[m + 3] === 0) m += 4;
  while (m < end && deltas[m] === 0) m++;
  return m;
}

/**
 * The blend of one colour at one α as a table: result by channel and destination byte, filled
 * by `blendPixel`'s formula, so a pixel looked up is the pixel computed. The tables of the last
 * few α are kept: inside a shape α comes back from row to row (exactly `opacity`, or one of a
 * few values a rounding below it where the float sums of the edges end just under 1).
 */
class BlendTable {
  /** Runs shorter than this are cheaper to blend than to fill a table for. */
  static readonly MIN_RUN = 48;
  /**
   * Below this α a blend moves no byte: |(src − dst)·α| < 255 / 1024 < 0.5, so dst + that + 0.5
   * truncates to dst. Runs right of a shape whose edges' sums leave a residue of ~1e-9 are
   * skipped instead of blended through an identity table.
   */
  static readonly INVISIBLE_ALPHA = 1 / 1024;
  /** Tables kept, by α; the oldest is refilled when another α needs one. */
  static readonly KEPT = 8;
  readonly #tables = new Map<number, Uint8Array>();
  readonly #color: Rgb;
  readonly #words: Uint32Array | undefined;

  /** `words`: the canvas's bytes as little-endian words, when it has them (see wordView). */
  constructor(color: Rgb, words: Uint32Array | undefined) {
    this.#color = color;
    this.#words = words;
  }

  /**
   * Blends `n` pixels from byte `i` at α (0 < α < 1). With words, four pixels (12 bytes, three
   * words) at a time from the first pixel whose index is a multiple of 4 (a word boundary):
   * the same table entries for the same bytes, three loads and stores instead of twelve.
   */
  apply(d: Uint8Array, i: number, n: number, a: number): void {
    const t = this.#tables.get(a) ?? this.#fill(a);
    const end = i + 3 * n;
    const words = this.#words;
    if (words !== undefined) {
      for (; i < end && i % 12 !== 0; i += 3) blendBytes(t, d, i);
      for (let w = i >> 2; i + 12 <= end; i += 12, w += 3) {
        const w0 = words[w]!, w1 = words[w + 1]!, w2 = words[w + 2]!;
        // Bytes in memory order: r0 g0 b0 r1 | g1 b1 r2 g2 | b2 r3 g3 b3; R, G, B tables at 0, 256, 512.
        words[w] = t[w0 & 255]! | (t[256 + ((w0 >>> 8) & 255)]! << 8) | (t[512 + ((w0 >>> 16) & 255)]! << 16) | (t[w0 >>> 24]! << 24);
        words[w + 1] = t[256 + (w1 & 255)]! | (t[512 + ((w1 >>> 8) & 255)]! << 8) | (t[(w1 >>> 16) & 255]! << 16) | (t[256 + (w1 >>> 24)]! << 24);
        words[w + 2] = t[512 + (w2 & 255)]! | (t[(w2 >>> 8) & 255]! << 8) | (t[256 + ((w2 >>> 16) & 255)]! << 16) | (t[512 + (w2 >>> 24)]! << 24);
      }
    }
    for (; i < end; i += 3) blendBytes(t, d, i);
  }

  #fill(a: number): Uint8Array {
    const tables = this.#tables;
    let t: Uint8Array;
    if (tables.size < BlendTable.KEPT) {
      t = new Uint8Array(768);
    } else {
      const [oldest, table] = tables.entries().next().value!;
      tables.delete(oldest);
      t = table;
    }
    const { r, g, b } = this.#color;
    for (let v = 0; v < 256; v++) {
      t[v] = v + (r - v) * a + 0.5;
      t[256 + v] = v + (g - v) * a + 0.5;
      t[512 + v] = v + (b - v) * a + 0.5;
    }
    tables.set(a, t);
    return t;
  }
}

/** One pixel at byte `i` through a BlendTable's bytes. */
function blendBytes(t: Uint8Array, d: Uint8Array, i: number): void {
  d[i] = t[d[i]!]!;
  d[i + 1] = t[256 + d[i + 1]!]!;
  d[i + 2] = t[512 + d[i + 2]!]!;
}

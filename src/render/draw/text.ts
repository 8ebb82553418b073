/**
 * The last two stages of the text pipeline: a glyph outline scaled to pixels and rasterised to
 * a coverage mask, then composited onto the canvas. Pen positions keep quarter-pixel precision
 * horizontally; baselines sit on whole pixels so every line's stems land alike.
 */
import type { Font } from '../font/font.js';
import type { LaidOutLine } from '../layout.js';
import type { Canvas } from './canvas.js';
import type { Rgb } from './color.js';
import { NOTHING, type Paint } from './paint.js';
import { PathBuilder } from './path.js';
import { rasterize, type CoverageMask } from './rasterize.js';

/** Horizontal pen positions are rounded to 1/SUBPIXELS of a pixel (cache key and output). */
export const SUBPIXELS = 4;

/**
 * The glyph's coverage with its pen at (offsetX, 0) and the baseline at y = 0 (y down): the
 * mask's x and y say where its top-left pixel lies relative to the pen's whole pixel.
 */
export function rasterizeGlyph(font: Font, glyphIndex: number, size: number, offsetX = 0): CoverageMask {
  const scale = size / font.unitsPerEm;
  const path = new PathBuilder();
  for (const c of font.outline(glyphIndex)) {
    switch (c.type) {
      case 'move':
        path.moveTo(c.x * scale + offsetX, -c.y * scale);
        break;
      case 'line':
        path.lineTo(c.x * scale + offsetX, -c.y * scale);
        break;
      case 'quad':
        path.quadTo(c.cx * scale + offsetX, -c.cy * scale, c.x * scale + offsetX, -c.y * scale);
        break;
      default:
        unreachable(c);
    }
  }
  path.close();
  return rasterize(path);
}

function unreachable(x: never): never {
  throw new TypeError(`unexpected outline command ${JSON.stringify(x)}`);
}

/**
 * Bytes of coverage a GlyphCache keeps by default: about twice the masks of a typical poster
 * (134 distinct glyph masks, 1.0 MB, for bench/poster.mjs's spec), so a render worker's next
 * poster at the same sizes rasterises no glyph again.
 */
export const GLYPH_CACHE_BYTES = 2 * 1024 * 1024;

/**
 * Masks of glyphs already rasterised at a size and quarter-pixel offset, per font, within a
 * budget of bytes: a mask that would take the cache past it first empties the cache (masks are
 * only ever rasterised again, never wrong), so a long-lived cache cannot grow without bound.
 */
export class GlyphCache {
  readonly #masks = new Map<Font, Map<string, CoverageMask>>();
  readonly #budget: number;
  #bytes = 0;

  constructor(budgetBytes = GLYPH_CACHE_BYTES) {
    this.#budget = budgetBytes;
  }

  /** Bytes of coverage held now. */
  get bytes(): number {
    return this.#bytes;
  }

  mask(font: Font, glyphIndex: number, size: number, subpixel: number): CoverageMask {
    const key = `${glyphIndex}:${size}:${subpixel}`;
    const cached = this.#masks.get(font)?.get(key);
    if (cached !== undefined) return cached;
    const mask = rasterizeGlyph(font, glyphIndex, size, subpixel / SUBPIXELS);
    if (this.#bytes + mask.data.byteLength > this.#budget) {
      this.#masks.clear();
      this.#bytes = 0;
    }
    let perFont = this.#masks.get(font);
    if (perFont === undefined) {
      perFont = new Map();
      this.#masks.set(font, perFont);
    }
    perFont.set(key, mask);
    this.#bytes += mask.data.byteLength;
    return mask;
  }
}

/** How to draw one laid-out line. */
export interface LineStyle {
  readonly font: Font;
  /** Pixels per em. */
  readonly size: number;
  readonly color: Rgb;
  readonly opacity?: number;
}

/**
 * A laid-out line with its pen starting at (x, baselineY), the baseline rounded to a pixel: its
 * glyphs' masks are found (or rasterised) once, and each band of the canvas gets their rows.
 */
export function textLinePaint(line: LaidOutLine, x: number, baselineY: number, style: LineStyle, cache: GlyphCache): Paint {
  const { font, size, color } = style;
  const opacity = style.opacity ?? 1;
  const scale = size / font.unitsPerEm;
  const baseline = Math.round(baselineY);
  const masks: CoverageMask[] = [];
  const pens: number[] = [];
  let top = Infinity;
  let bottom = -Infinity;
  for (let i = 0; i < line.glyphs.length; i++) {
    const pen = Math.round((x + line.positions[i]! * scale) * SUBPIXELS);
    const whole = Math.floor(pen / SUBPIXELS);
    const mask = cache.mask(font, line.glyphs[i]!, size, pen - whole * SUBPIXELS);
    if (mask.width === 0) continue; // a space
    masks.push(mask);
    pens.push(whole);
    top = Math.min(top, baseline + mask.y);
    bottom = Math.max(bottom, baseline + mask.y + mask.height);
  }
  if (masks.length === 0) return NOTHING;
  return {
    top,
    bottom,
    paint(canvas) {
      for (let i = 0; i < masks.length; i++) canvas.fillMask(masks[i]!, color, opacity, pens[i]!, baseline);
    },
  };
}

/** Draws a line now (see textLinePaint). */
export function drawLine(canvas: Canvas, line: LaidOutLine, x: number, baselineY: number, style: LineStyle, cache: GlyphCache): void {
  textLinePaint(line, x, baselineY, style, cache).paint(canvas);
}

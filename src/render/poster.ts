/**
 * Posters, pure: a validated spec and the parsed faces -> pixels -> JPEG bytes, and the file
 * name those bytes go under. Nothing here touches the file system: `poster/` loads the fonts and
 * writes the files.
 *
 *   spec.ts      validation and normalisation (the API's 422 list)
 *   design.ts    background, shapes and text placement on 1125 × 2436
 *   layout.ts    wrapping and fitting text; font/ parses DejaVu Sans; draw/ rasterises
 *   jpeg/        our baseline encoder
 */
import { createHash } from 'node:crypto';
import { backgroundPaints, drawBackground, drawText, planText, POSTER_HEIGHT, POSTER_WIDTH, textPaints, type PosterFonts } from './design.js';
import { Canvas } from './draw/canvas.js';
import { paintAll } from './draw/paint.js';
import { GlyphCache } from './draw/text.js';
import { encodeJpeg, JpegEncoder, type JpegImage, type Subsampling } from '../jpeg/index.js';
import { canonicalJson, type PosterSpec } from './spec.js';

export { POSTER_HEIGHT, POSTER_WIDTH, type PosterFonts } from './design.js';

/**
 * Part of every poster's file name: bump it whenever the same spec would draw or encode to other
 * bytes (design, fonts, rasteriser, encoder settings), so old files are never served for new
 * renderings.
 */
export const RENDERER_VERSION = '1';

/**
 * Chroma subsampling of posters: 4:4:4. A poster is mostly text, and much of it coloured (the
 * accent subtitle, light text on a saturated gradient); 4:2:0 halves the chroma resolution both
 * ways and bleeds colour across every glyph edge. Measured on bench/poster.mjs's typical poster
 * at quality 85, decoded with libjpeg-turbo, PSNR over RGB against the drawn pixels:
 *
 *   subsampling  bytes    whole poster  accent-text rows
 *   4:2:0        145 KB   38.4 dB       28.6 dB
 *   4:2:2        161 KB   40.1 dB       30.9 dB
 *   4:4:4        186 KB   42.7 dB       35.8 dB
 *
 * +7 dB on the coloured text for 1.28× the bytes; 4:2:0 at quality 90 still only reaches
 * 29.0 dB there, so more quality cannot buy it back. The price is encode time, about 1.4× of
 * 4:2:0's (three full-size components instead of one and two quarters; 50 against 35 ms on the
 * typical poster): bench/RESULTS.md, "Posters against the canvases".
 */
export const POSTER_SUBSAMPLING: Subsampling = '4:4:4';

/** Milliseconds spent in each stage of one rendering. */
export interface RenderTimings {
  readonly draw: number;
  readonly text: number;
  readonly encode: number;
}

/** Draws the poster's pixels: background and shapes, then text. */
export function drawPoster(spec: PosterSpec, fonts: PosterFonts): Canvas {
  const canvas = drawBackground(spec);
  drawText(canvas, planText(spec, fonts));
  return canvas;
}

/** Encodes drawn pixels as the poster's JPEG. */
export function encodePoster(canvas: Canvas, quality: number, subsampling: Subsampling = POSTER_SUBSAMPLING): Uint8Array {
  return encodeJpeg(posterImage(canvas), { quality, subsampling });
}

function posterImage(canvas: Canvas): JpegImage {
  return { width: canvas.width, height: canvas.height, data: canvas.data, channels: 3 };
}

/** Renders with the time of each stage, read from `clock` (milliseconds): the benchmark's view. */
export function renderPosterTimed(
  spec: PosterSpec, fonts: PosterFonts, clock: () => number = () => performance.now(),
): { bytes: Uint8Array; timings: RenderTimings } {
  return new PosterRenderer().renderTimed(spec, fonts, clock);
}

/**
 * Renders a poster (1125 × 2436 baseline JPEG). Deterministic: the same spec, faces and renderer
 * version give the same bytes. One poster, whose encoder buffers are freed before this returns
 * (see PosterRenderer.release); a run of them goes through a PosterRenderer.
 */
export function renderPosterJpeg(spec: PosterSpec, fonts: PosterFonts, subsampling: Subsampling = POSTER_SUBSAMPLING): Uint8Array {
  const renderer = new PosterRenderer(subsampling);
  try {
    return renderer.render(spec, fonts);
  } finally {
    renderer.release();
  }
}

/**
 * Rows of the band painted at a time: the encoder asks for as many whole MCU rows as it holds
 * (4 of 4:2:0, 8 of 4:4:4). 211 KiB, where a whole poster's pixels are 8 MiB. Each band costs
 * every paint its setup and every glyph of a line it crosses a clipped call: with a band per MCU
 * row (305 at 4:4:4) a poster took 1-3 % more CPU than drawn whole, measured side by side on
 * one core; with 39 bands of 64 rows, within ±1 %.
 */
export const BAND_ROWS = 64;

/**
 * A renderer for a run of posters (one per render worker). It never holds a poster's pixels
 * whole: the poster is made into a list of paints (render/draw/paint.ts: the gradient, the
 * shapes, the glyphs' masks), and each band of BAND_ROWS rows is painted on one small canvas
 * just before the JPEG encoder takes it. It keeps that band, a JpegEncoder with its kept
 * buffers, and a GlyphCache (at most GLYPH_CACHE_BYTES) so glyphs at sizes an earlier poster
 * used are not rasterised again. Drawing and encoding run without a pause, so no two renders
 * share them. Same bytes as `drawPoster` then `encodePoster`.
 */
export class PosterRenderer {
  readonly #band = new Canvas(POSTER_WIDTH, POSTER_HEIGHT, BAND_ROWS);
  readonly #encoder = new JpegEncoder();
  readonly #glyphs = new GlyphCache();
  readonly #subsampling: Subsampling;

  /** `subsampling`: the service's is POSTER_SUBSAMPLING; the benchmark also encodes as its peers do. */
  constructor(subsampling: Subsampling = POSTER_SUBSAMPLING) {
    this.#subsampling = subsampling;
  }

  /** Renders one poster; see renderPosterJpeg. */
  render(spec: PosterSpec, fonts: PosterFonts): Uint8Array {
    return this.renderTimed(spec, fonts, noClock).bytes;
  }

  /**
   * Renders one poster with the time of each stage, read from `clock` (milliseconds): `draw`
   * paints the background and shapes, `text` lays out, rasterises and paints the text, summed
   * over the bands; `encode` is the rest.
   */
  renderTimed(spec: PosterSpec, fonts: PosterFonts, clock: () => number = () => performance.now()): { bytes: Uint8Array; timings: RenderTimings } {
    const start = clock();
    const background = backgroundPaints(spec);
    const t0 = clock();
    const text = textPaints(planText(spec, fonts), this.#glyphs);
    const t1 = clock();
    let draw = t0 - start;
    let textTime = t1 - t0;
    const band = this.#band;
    const bytes = this.#encoder.encode({
      width: POSTER_WIDTH,
      height: POSTER_HEIGHT,
      channels: 3,
      data: band.data,
      drawRows(first, count) {
        const b0 = clock();
        band.showRows(first, count);
        paintAll(band, background);
        const b1 = clock();
        paintAll(band, text);
        draw += b1 - b0;
        textTime += clock() - b1;
      },
    }, { quality: spec.quality, subsampling: this.#subsampling });
    return { bytes, timings: { draw, text: textTime, encode: clock() - start - draw - textTime } };
  }

  /**
   * Frees the encoder's kept buffers now (see JpegEncoder.release), for a renderer made for one
   * poster; a later render makes new ones.
   */
  release(): void {
    this.#encoder.release();
  }
}

/** The clock of an untimed render: every stage takes 0. */
const noClock = (): number => 0;

/** The poster's file name: sha256 of the renderer version and the canonical spec, 32 hex digits. */
export function posterFileNameOf(spec: PosterSpec): string {
  const hash = createHash('sha256').update(`poster renderer ${RENDERER_VERSION}\n${canonicalJson(spec)}`).digest('hex');
  return `${hash.slice(0, 32)}.jpg`;
}

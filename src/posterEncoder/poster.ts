/**
 * Posters: spec -> pixels -> JPEG bytes -> `<publicDir>/posters/<hash>.jpg`.
 *
 *   spec.ts      validation and normalisation (the API's 422 list)
 *   design.ts    background, shapes and text placement on 1125 × 2436
 *   layout.ts    wrapping and fitting text; font/ parses DejaVu Sans; draw/ rasterises
 *   jpeg/        our baseline encoder
 */
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { drawBackground, drawText, planText, POSTER_HEIGHT, POSTER_WIDTH, type PosterFonts } from './design.js';
import type { Canvas } from './draw/canvas.js';
import { loadFont } from './font/load.js';
import { encodeJpeg, type Subsampling } from './jpeg/encode.js';
import { canonicalJson, validatePosterSpec, type PosterSpec, type PosterSpecInput, type SpecError } from './spec.js';
import { errorCode } from '../errno.js';

export { POSTER_HEIGHT, POSTER_WIDTH } from './design.js';

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
 * 29.0 dB there, so more quality cannot buy it back. The price is encode time, about 1.6× of
 * 4:2:0's (three full-size components instead of one and two quarters): bench/RESULTS.md.
 */
export const POSTER_SUBSAMPLING: Subsampling = '4:4:4';

/** Thrown by `renderPoster` and `writePoster` for a spec that does not validate. */
export class PosterSpecError extends TypeError {
  override readonly name = 'PosterSpecError';
  readonly errors: readonly SpecError[];

  constructor(errors: readonly SpecError[]) {
    super(`invalid poster spec: ${errors.map((e) => `${e.pointer || '/'}: ${e.reason}`).join('; ')}`);
    this.errors = errors;
  }
}

/** Milliseconds spent in each stage of one rendering. */
export interface RenderTimings {
  readonly draw: number;
  readonly text: number;
  readonly encode: number;
}

/** Validates (or re-validates) a spec, throwing `PosterSpecError` with every problem. */
export function normalizePosterSpec(spec: PosterSpecInput | PosterSpec): PosterSpec {
  const checked = validatePosterSpec(spec);
  if (!checked.ok) throw new PosterSpecError(checked.errors);
  return checked.spec;
}

/** Loads (once) the faces the design uses. */
export async function loadPosterFonts(): Promise<PosterFonts> {
  const [regular, bold] = await Promise.all([loadFont('regular'), loadFont('bold')]);
  return { regular, bold };
}

/** Draws the poster's pixels: background and shapes, then text. */
export function drawPoster(spec: PosterSpec, fonts: PosterFonts): Canvas {
  const canvas = drawBackground(spec);
  drawText(canvas, planText(spec, fonts));
  return canvas;
}

/** Encodes drawn pixels as the poster's JPEG. */
export function encodePoster(canvas: Canvas, quality: number, subsampling: Subsampling = POSTER_SUBSAMPLING): Uint8Array {
  return encodeJpeg({ width: canvas.width, height: canvas.height, data: canvas.data, channels: 3 }, { quality, subsampling });
}

/**
 * Renders with the time of each stage, read from `clock` (milliseconds): the benchmark's view.
 */
export async function renderPosterTimed(
  input: PosterSpecInput | PosterSpec, clock: () => number = () => performance.now(),
): Promise<{ bytes: Uint8Array; timings: RenderTimings }> {
  const spec = normalizePosterSpec(input);
  const fonts = await loadPosterFonts();
  const t0 = clock();
  const canvas = drawBackground(spec);
  const t1 = clock();
  drawText(canvas, planText(spec, fonts));
  const t2 = clock();
  const bytes = encodePoster(canvas, spec.quality);
  const t3 = clock();
  return { bytes, timings: { draw: t1 - t0, text: t2 - t1, encode: t3 - t2 } };
}

/**
 * Renders a poster (1125 × 2436 baseline JPEG). Deterministic: the same spec and renderer
 * version give the same bytes. Throws `PosterSpecError` for an invalid spec.
 */
export async function renderPoster(spec: PosterSpecInput | PosterSpec): Promise<Uint8Array> {
  return (await renderPosterTimed(spec)).bytes;
}

/** The poster's file name: sha256 of the renderer version and the canonical spec, 32 hex digits. */
export function posterFileName(spec: PosterSpecInput | PosterSpec): string {
  const canonical = canonicalJson(normalizePosterSpec(spec));
  const hash = createHash('sha256').update(`poster renderer ${RENDERER_VERSION}\n${canonical}`).digest('hex');
  return `${hash.slice(0, 32)}.jpg`;
}

/**
 * Writes the poster to `<publicDir>/posters/<hash>.jpg` and returns that path. Idempotent: an
 * existing file of that name is left as it is (same name, same bytes). Atomic: the bytes go to
 * a temp file in the same directory, which is then hard-linked into place; a link never
 * replaces an existing file, so concurrent writers of one spec cannot clobber each other.
 */
export async function writePoster(spec: PosterSpecInput | PosterSpec, publicDir: string): Promise<string> {
  const normalized = normalizePosterSpec(spec);
  const dir = join(publicDir, 'posters');
  const path = join(dir, posterFileName(normalized));
  if (await exists(path)) return path;
  const bytes = await renderPoster(normalized);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${randomBytes(8).toString('hex')}.tmp`);
  try {
    const file = await open(temp, 'wx');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await link(temp, path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err; // another writer got there first, with the same bytes
    });
  } finally {
    await rm(temp, { force: true });
  }
  return path;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

/**
 * Posters for the library API and the `poster` command: a spec is checked once, the bundled
 * faces are loaded once, and the file goes to `<publicDir>/posters/<hash>.jpg` atomically.
 *
 * Two ways to render, the same bytes; neither holds a poster's pixels whole (render/poster.ts
 * paints a band of 64 rows just before the encoder takes it):
 * - `renderPoster(spec)` for one poster now and then: it keeps nothing. The encoder's buffers
 *   and the faces' bytes are freed before its promise settles, not left for a late full garbage
 *   collection.
 * - `createPosterRenderer()` for many posters in one process (a batch, a server of your own):
 *   it keeps the faces, the band, the encoder's buffers and a cache of drawn glyphs from one
 *   poster to the next, as the service's render workers do, so a run of posters costs one set of
 *   buffers instead of a new set per poster for the garbage collector to find.
 */
import { join } from 'node:path';
import type { Subsampling } from '../jpeg/index.js';
import { posterFileNameOf, PosterRenderer as PixelRenderer, renderPosterJpeg, validatePosterSpec, type PosterSpec, type PosterSpecInput, type SpecError } from '../render/index.js';
import { writePosterFile } from './files.js';
import { FontLoader } from './fonts.js';

/** Thrown for a spec that does not validate, with every problem. */
export class PosterSpecError extends TypeError {
  override readonly name = 'PosterSpecError';
  readonly errors: readonly SpecError[];

  constructor(errors: readonly SpecError[]) {
    super(`invalid poster spec: ${errors.map((e) => `${e.pointer || '/'}: ${e.reason}`).join('; ')}`);
    this.errors = errors;
  }
}

/** The validated spec of an input, or `PosterSpecError` with every problem. */
export function checkPosterSpec(input: unknown): PosterSpec {
  const checked = validatePosterSpec(input);
  if (!checked.ok) throw new PosterSpecError(checked.errors);
  return checked.value;
}

/** How posters are encoded; every member is optional. */
export interface PosterRenderOptions {
  /**
   * Chroma subsampling: '4:4:4' (the default, what the service and `writePoster` write: coloured
   * text stays sharp), or '4:2:2' / '4:2:0' for smaller files. Any other value is refused (the
   * encoder's RangeError) when a poster is encoded.
   */
  readonly subsampling?: Subsampling;
}

/** A renderer for a run of posters, made by `createPosterRenderer`. */
export interface PosterRenderer {
  /**
   * The poster's JPEG bytes, the same as `renderPoster(spec, options)` gives; throws
   * `PosterSpecError` for an invalid spec. The bytes are the caller's: a later render never
   * touches them. Calls may overlap: each draws and encodes without a pause once the faces are
   * loaded, so two renders never share the buffers at once.
   */
  render(input: PosterSpecInput | PosterSpec): Promise<Uint8Array>;
}

/**
 * Renders a poster's JPEG bytes; throws `PosterSpecError` for an invalid spec. One poster: it
 * reads the faces and allocates its buffers afresh and keeps none of them; for many
 * posters in one process, `createPosterRenderer` reuses them.
 */
export async function renderPoster(input: PosterSpecInput | PosterSpec, options: PosterRenderOptions = {}): Promise<Uint8Array> {
  const spec = checkPosterSpec(input);
  return renderOnce(spec, options.subsampling);
}

/** One poster with faces read for it alone and freed, with its buffers, before it returns. */
async function renderOnce(spec: PosterSpec, subsampling?: Subsampling): Promise<Uint8Array> {
  const fonts = new FontLoader();
  try {
    return renderPosterJpeg(spec, await fonts.posterFonts(), subsampling);
  } finally {
    fonts.release();
  }
}

/**
 * A renderer for many posters: the faces are read once, and the band it paints on,
 * the encoder's buffers (each within its bound) and the glyph cache (within its byte budget)
 * serve every render, so a long run of posters holds one set of them instead of leaving a set
 * per poster to the garbage collector. Same bytes as `renderPoster` with the same options. What it keeps is freed with
 * the renderer itself: drop the last reference when the run is over. One per thread: a worker
 * thread makes its own.
 */
export function createPosterRenderer(options: PosterRenderOptions = {}): PosterRenderer {
  const pixels = new PixelRenderer(options.subsampling);
  const fonts = new FontLoader();
  return {
    async render(input) {
      const spec = checkPosterSpec(input);
      return pixels.render(spec, await fonts.posterFonts());
    },
  };
}

/** The poster's file name (`<32 hex digits>.jpg`): the same for the same spec and renderer version. */
export function posterFileName(input: PosterSpecInput | PosterSpec): string {
  return posterFileNameOf(checkPosterSpec(input));
}

/**
 * Writes the poster to `<publicDir>/posters/<hash>.jpg` and returns that path. Idempotent (an
 * existing file of that name is left as it is: same name, same bytes) and atomic (a temp file,
 * then a hard link that never replaces anything).
 */
export async function writePoster(input: PosterSpecInput | PosterSpec, publicDir: string): Promise<string> {
  const spec = checkPosterSpec(input);
  const dir = join(publicDir, 'posters');
  const name = posterFileNameOf(spec);
  await writePosterFile(dir, name, await renderOnce(spec));
  return join(dir, name);
}

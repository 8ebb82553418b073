/**
 * Posters for the library API and the `poster` command: a spec is checked once, the bundled
 * faces are loaded once, and the file goes to `<publicDir>/posters/<hash>.jpg` atomically.
 */
import { join } from 'node:path';
import { posterFileNameOf, renderPosterJpeg, validatePosterSpec, type PosterSpec, type PosterSpecInput, type SpecError } from '../render/index.js';
import { writePosterFile } from './files.js';
import { loadPosterFonts } from './fonts.js';

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

/** Renders a poster's JPEG bytes; throws `PosterSpecError` for an invalid spec. */
export async function renderPoster(input: PosterSpecInput | PosterSpec): Promise<Uint8Array> {
  return renderPosterJpeg(checkPosterSpec(input), await loadPosterFonts());
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
  await writePosterFile(dir, name, renderPosterJpeg(spec, await loadPosterFonts()));
  return join(dir, name);
}

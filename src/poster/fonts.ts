/**
 * The fonts that ship with the package (`assets/fonts/`, DejaVu Sans; licence in
 * `assets/fonts/LICENSE-DejaVu.txt`), each read and parsed once per FontLoader. This is the file
 * system's side of posters: the renderer under `render/` is handed the parsed faces.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PosterFonts, Font } from '../render/index.js';
import { freeNow } from '../util/free-now.js';

/** The faces a poster uses. */
export type FontFace = 'regular' | 'bold';

const FILES: Readonly<Record<FontFace, string>> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
};

/**
 * The parsed faces for a run of posters (one loader per render worker): each face is read and
 * parsed once per loader, so it holds at most one entry per FontFace, two in all. Reading and
 * parsing both faces costs a few milliseconds a poster would otherwise pay.
 */
export class FontLoader {
  readonly #loaded = new Map<FontFace, Promise<Font>>();
  /** The files' bytes, which the parsed faces read their glyphs from. */
  readonly #files: Uint8Array[] = [];

  /** The parsed face, loaded on first call and shared afterwards. */
  load(face: FontFace): Promise<Font> {
    let font = this.#loaded.get(face);
    if (font === undefined) {
      font = readFile(fontPath(face)).then((bytes) => {
        this.#files.push(bytes);
        return new Font(bytes);
      });
      // A failed load is not kept, so a later call can succeed.
      font.catch(() => this.#loaded.delete(face));
      this.#loaded.set(face, font);
    }
    return font;
  }

  /** The faces a poster's design uses. */
  async posterFonts(): Promise<PosterFonts> {
    const [regular, bold] = await Promise.all([this.load('regular'), this.load('bold')]);
    return { regular, bold };
  }

  /**
   * Frees the files' bytes now (see freeNow), for a loader made for one poster: the faces it
   * gave out can no longer draw. A later load reads the files again.
   */
  release(): void {
    for (const bytes of this.#files) freeNow(bytes);
    this.#files.length = 0;
    this.#loaded.clear();
  }
}

/** One parsed face, read afresh (a run of posters keeps a FontLoader). */
export function loadFont(face: FontFace): Promise<Font> {
  return new FontLoader().load(face);
}

/** Absolute path of a shipped font file. */
export function fontPath(face: FontFace): string {
  return join(packageRoot(dirname(fileURLToPath(import.meta.url))), 'assets', 'fonts', FILES[face]);
}

/**
 * The nearest directory at or above `from` holding a `package.json`: this module runs as
 * `src/poster/fonts.ts` (tsx) or `dist/poster/fonts.js` (compiled), and
 * `assets/` sits at the package root in both layouts.
 */
export function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${from}`);
  }
}

/** The faces a poster's design uses, read afresh (a run of posters keeps a FontLoader). */
export function loadPosterFonts(): Promise<PosterFonts> {
  return new FontLoader().posterFonts();
}

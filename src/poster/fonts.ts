/**
 * The fonts that ship with the package (`assets/fonts/`, DejaVu Sans; licence in
 * `assets/fonts/LICENSE-DejaVu.txt`), each read and parsed once per process. This is the file
 * system's side of posters: the encoder under `posterEncoder/` is handed the parsed faces.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PosterFonts } from '../posterEncoder/design.js';
import { Font } from '../posterEncoder/font/font.js';

/** The faces a poster uses. */
export type FontFace = 'regular' | 'bold';

const FILES: Record<FontFace, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
};

const loaded = new Map<FontFace, Promise<Font>>();

/** The parsed face, loaded on first call and shared afterwards. */
export function loadFont(face: FontFace): Promise<Font> {
  let font = loaded.get(face);
  if (font === undefined) {
    font = readFile(fontPath(face)).then((bytes) => new Font(bytes));
    // A failed load is not cached, so a later call can succeed.
    font.catch(() => loaded.delete(face));
    loaded.set(face, font);
  }
  return font;
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

/** The faces a poster's design uses, loaded once. */
export async function loadPosterFonts(): Promise<PosterFonts> {
  const [regular, bold] = await Promise.all([loadFont('regular'), loadFont('bold')]);
  return { regular, bold };
}

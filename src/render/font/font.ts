/**
 * A parsed TrueType font: the first stage of the text pipeline (font tables -> glyph outline ->
 * coverage bitmap -> canvas). Glyph outlines are parsed on first use and cached per font.
 */
import { parseCmap, type CharacterMap } from './cmap.js';
import { GlyphTable, type GlyphHeader } from './glyf.js';
import { parseKern, type KerningLookup } from './kern.js';
import { parseHead, parseHhea, parseHmtx, parseNumGlyphs, type HorizontalMetrics } from './metrics.js';
import { pointsToOutline, type OutlineCommand } from './outline.js';
import { optionalTable, readTableDirectory, requireTable } from './sfnt.js';

export { FontFormatError } from './sfnt.js';
export type { OutlineCommand } from './outline.js';

/** Glyph 0 is `.notdef` in every TrueType font: drawn for characters the font lacks. */
export const NOTDEF = 0;

export class Font {
  /** Font units per em (the scale of every other number here). */
  readonly unitsPerEm: number;
  /** Typographic line metrics from `hhea`, font units, y up (descender < 0). */
  readonly ascender: number;
  readonly descender: number;
  readonly lineGap: number;
  readonly numGlyphs: number;

  readonly #cmap: CharacterMap;
  readonly #metrics: HorizontalMetrics;
  readonly #glyphs: GlyphTable;
  readonly #kern: KerningLookup;
  readonly #outlines = new Map<number, readonly OutlineCommand[]>();

  /** Parses the font's tables; throws `FontFormatError` for a file that is not usable TrueType. */
  constructor(bytes: Uint8Array) {
    const tables = readTableDirectory(bytes);
    const head = parseHead(requireTable(bytes, tables, 'head'));
    const hhea = parseHhea(requireTable(bytes, tables, 'hhea'));
    this.numGlyphs = parseNumGlyphs(requireTable(bytes, tables, 'maxp'));
    this.unitsPerEm = head.unitsPerEm;
    this.ascender = hhea.ascender;
    this.descender = hhea.descender;
    this.lineGap = hhea.lineGap;
    this.#cmap = parseCmap(requireTable(bytes, tables, 'cmap'));
    this.#metrics = parseHmtx(requireTable(bytes, tables, 'hmtx'), hhea.numberOfHMetrics, this.numGlyphs);
    this.#glyphs = new GlyphTable(
      requireTable(bytes, tables, 'glyf'), requireTable(bytes, tables, 'loca'), head.indexToLocFormat, this.numGlyphs,
    );
    this.#kern = parseKern(optionalTable(bytes, tables, 'kern'));
  }

  /** The glyph index of a code point; `NOTDEF` (0) when the font has none. */
  glyphIndex(codePoint: number): number {
    const glyph = this.#cmap(codePoint);
    return glyph < this.numGlyphs ? glyph : NOTDEF;
  }

  /** Advance width in font units. */
  advanceWidth(glyphIndex: number): number {
    return this.#metrics.advanceWidths[glyphIndex] ?? 0;
  }

  /** Left side bearing in font units. */
  leftSideBearing(glyphIndex: number): number {
    return this.#metrics.leftSideBearings[glyphIndex] ?? 0;
  }

  /** Kerning between two glyphs in font units (negative pulls them together). */
  kerning(left: number, right: number): number {
    return this.#kern(left, right);
  }

  /** How the glyph is stored (contour count, or -1 and its components for a composite). */
  glyphHeader(glyphIndex: number): GlyphHeader {
    return this.#glyphs.header(glyphIndex);
  }

  /** The glyph's outline in font units, composites resolved; cached. */
  outline(glyphIndex: number): readonly OutlineCommand[] {
    let outline = this.#outlines.get(glyphIndex);
    if (outline === undefined) {
      outline = Object.freeze(pointsToOutline(this.#glyphs.points(glyphIndex)));
      this.#outlines.set(glyphIndex, outline);
    }
    return outline;
  }
}

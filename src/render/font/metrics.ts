/**
 * Font-wide and per-glyph metrics: `head`, `hhea`, `maxp` and `hmtx` (TrueType reference
 * manual, chapter 6; OpenType spec, same table names).
 */
import { FontFormatError, type TableReader } from './sfnt.js';

/** What `head` tells the rest of the parser. */
export interface HeadTable {
  /** Font units per em: 16..16384 (2048 for DejaVu). */
  readonly unitsPerEm: number;
  /** 0: `loca` holds uint16 offsets / 2; 1: uint32 offsets. */
  readonly indexToLocFormat: 0 | 1;
}

export function parseHead(head: TableReader): HeadTable {
  const magic = head.uint32(12);
  if (magic !== 0x5f0f3cf5) throw new FontFormatError(`'head' magic number is 0x${magic.toString(16)}`);
  const unitsPerEm = head.uint16(18);
  if (unitsPerEm < 16 || unitsPerEm > 16384) throw new FontFormatError(`unitsPerEm ${unitsPerEm} is out of range`);
  const indexToLocFormat = head.int16(50);
  if (indexToLocFormat !== 0 && indexToLocFormat !== 1) {
    throw new FontFormatError(`indexToLocFormat ${indexToLocFormat} is neither 0 nor 1`);
  }
  return { unitsPerEm, indexToLocFormat };
}

/** Horizontal line metrics from `hhea`, in font units (descender is negative). */
export interface HheaTable {
  readonly ascender: number;
  readonly descender: number;
  readonly lineGap: number;
  readonly numberOfHMetrics: number;
}

export function parseHhea(hhea: TableReader): HheaTable {
  return {
    ascender: hhea.int16(4),
    descender: hhea.int16(6),
    lineGap: hhea.int16(8),
    numberOfHMetrics: hhea.uint16(34),
  };
}

/** `maxp`: the number of glyphs (the same offset in version 0.5 and 1.0). */
export function parseNumGlyphs(maxp: TableReader): number {
  return maxp.uint16(4);
}

/** Advance widths and left side bearings per glyph index, in font units. */
export interface HorizontalMetrics {
  readonly advanceWidths: Uint16Array;
  readonly leftSideBearings: Int16Array;
}

/**
 * `hmtx`: `numberOfHMetrics` (advance, lsb) pairs, then bare lsbs; glyphs past the pairs share
 * the last advance (monospaced tails).
 */
export function parseHmtx(hmtx: TableReader, numberOfHMetrics: number, numGlyphs: number): HorizontalMetrics {
  if (numberOfHMetrics < 1) throw new FontFormatError("'hhea' numberOfHMetrics is 0");
  const advanceWidths = new Uint16Array(numGlyphs);
  const leftSideBearings = new Int16Array(numGlyphs);
  const pairs = Math.min(numberOfHMetrics, numGlyphs);
  let lastAdvance = 0;
  for (let i = 0; i < pairs; i++) {
    lastAdvance = hmtx.uint16(i * 4);
    advanceWidths[i] = lastAdvance;
    leftSideBearings[i] = hmtx.int16(i * 4 + 2);
  }
  for (let i = pairs; i < numGlyphs; i++) {
    advanceWidths[i] = lastAdvance;
    leftSideBearings[i] = hmtx.int16(numberOfHMetrics * 4 + (i - numberOfHMetrics) * 2);
  }
  return { advanceWidths, leftSideBearings };
}

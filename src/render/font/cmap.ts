/**
 * `cmap`: Unicode code point -> glyph index, from a format 4 (BMP segments) or format 12
 * (segmented coverage, all planes) subtable (TrueType reference manual, 'cmap'; OpenType spec,
 * "cmap — Character to Glyph Index Mapping Table").
 */
import { FontFormatError, type TableReader } from './sfnt.js';

/** Maps a code point to a glyph index; 0 (`.notdef`) when the font has no glyph for it. */
export type CharacterMap = (codePoint: number) => number;

/** A Unicode subtable in the table's encoding records. */
export interface CmapSubtableRecord {
  readonly platformId: number;
  readonly encodingId: number;
  readonly format: number;
  /** Offset of the subtable from the start of `cmap`. */
  readonly offset: number;
}

/** Lists the subtables of `cmap` with their formats. */
export function listCmapSubtables(cmap: TableReader): CmapSubtableRecord[] {
  const count = cmap.uint16(2);
  const records: CmapSubtableRecord[] = [];
  for (let i = 0; i < count; i++) {
    const at = 4 + i * 8;
    const offset = cmap.uint32(at + 4);
    records.push({ platformId: cmap.uint16(at), encodingId: cmap.uint16(at + 2), format: cmap.uint16(offset), offset });
  }
  return records;
}

// Best first: full-repertoire Unicode (format 12), then BMP-only Unicode (format 4).
const PREFERENCE: ReadonlyArray<[platformId: number, encodingId: number, format: number]> = [
  [3, 10, 12],
  [0, 4, 12],
  [0, 6, 12],
  [3, 1, 4],
  [0, 3, 4],
  [0, 2, 4],
  [0, 1, 4],
  [0, 0, 4],
];

/** Picks the best Unicode subtable of `cmap` and returns its lookup. */
export function parseCmap(cmap: TableReader): CharacterMap {
  const records = listCmapSubtables(cmap);
  for (const [platformId, encodingId, format] of PREFERENCE) {
    const record = records.find((r) => r.platformId === platformId && r.encodingId === encodingId && r.format === format);
    if (record !== undefined) return parseCmapSubtable(cmap, record.offset);
  }
  throw new FontFormatError("'cmap' has no Unicode subtable in format 4 or 12");
}

/** The lookup of the format 4 or 12 subtable at `offset` in `cmap`. */
export function parseCmapSubtable(cmap: TableReader, offset: number): CharacterMap {
  const format = cmap.uint16(offset);
  if (format === 4) return parseFormat4(cmap, offset);
  if (format === 12) return parseFormat12(cmap, offset);
  throw new FontFormatError(`'cmap' subtable format ${format} is not supported`);
}

/**
 * Format 4: segments [startCode, endCode] sorted by endCode; a glyph is
 * `(c + idDelta) mod 65536`, or read from glyphIdArray through idRangeOffset (whose offset is
 * relative to its own position in the idRangeOffset array).
 */
function parseFormat4(cmap: TableReader, offset: number): CharacterMap {
  const segCount = cmap.uint16(offset + 6) >> 1;
  const endCodes = offset + 14;
  const startCodes = endCodes + segCount * 2 + 2; // + reservedPad
  const idDeltas = startCodes + segCount * 2;
  const idRangeOffsets = idDeltas + segCount * 2;
  const ends = new Uint16Array(segCount);
  for (let i = 0; i < segCount; i++) ends[i] = cmap.uint16(endCodes + i * 2);

  return (codePoint) => {
    if (codePoint < 0 || codePoint > 0xffff) return 0;
    // First segment whose endCode >= codePoint.
    let lo = 0;
    let hi = segCount;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid]! < codePoint) lo = mid + 1;
      else hi = mid;
    }
    if (lo === segCount) return 0;
    const start = cmap.uint16(startCodes + lo * 2);
    if (codePoint < start) return 0;
    const delta = cmap.uint16(idDeltas + lo * 2);
    const rangeOffsetAt = idRangeOffsets + lo * 2;
    const rangeOffset = cmap.uint16(rangeOffsetAt);
    if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
    const glyph = cmap.uint16(rangeOffsetAt + rangeOffset + (codePoint - start) * 2);
    return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
  };
}

/** Format 12: sequential groups [startCharCode, endCharCode] -> startGlyphID + (c - start). */
function parseFormat12(cmap: TableReader, offset: number): CharacterMap {
  const numGroups = cmap.uint32(offset + 12);
  const groups = new Uint32Array(numGroups * 3);
  for (let i = 0; i < numGroups; i++) {
    const at = offset + 16 + i * 12;
    groups[i * 3] = cmap.uint32(at);
    groups[i * 3 + 1] = cmap.uint32(at + 4);
    groups[i * 3 + 2] = cmap.uint32(at + 8);
  }
  return (codePoint) => {
    let lo = 0;
    let hi = numGroups;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (groups[mid * 3 + 1]! < codePoint) lo = mid + 1;
      else hi = mid;
    }
    if (lo === numGroups) return 0;
    const start = groups[lo * 3]!;
    if (codePoint < start) return 0;
    return groups[lo * 3 + 2]! + (codePoint - start);
  };
}

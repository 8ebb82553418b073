/**
 * `kern`: pair kerning from the Microsoft-style table (version 0), format 0 subtables that are
 * horizontal and not cross-stream (TrueType reference manual, 'kern'; OpenType spec, "kern —
 * Kerning"). GPOS kerning is not read; DejaVu carries both.
 */
import type { TableReader } from './sfnt.js';

/** Kerning adjustment in font units for a (left, right) glyph pair; 0 when none. */
export type KerningLookup = (left: number, right: number) => number;

const HORIZONTAL = 0x1;
const MINIMUM = 0x2;
const CROSS_STREAM = 0x4;
const OVERRIDE = 0x8;

/** The pairs of every usable subtable, later subtables adding to (or overriding) earlier ones. */
export function parseKern(kern: TableReader | undefined): KerningLookup {
  const pairs = new Map<number, number>();
  // Version 1 (Apple, a uint32 0x00010000 header) has a different layout: not read.
  if (kern !== undefined && kern.uint16(0) === 0) {
    const nTables = kern.uint16(2);
    let at = 4;
    for (let t = 0; t < nTables; t++) {
      const length = kern.uint16(at + 2);
      const coverage = kern.uint16(at + 4);
      const format = coverage >> 8;
      const usable = format === 0 && (coverage & HORIZONTAL) !== 0 && (coverage & (MINIMUM | CROSS_STREAM)) === 0;
      const nPairs = usable ? kern.uint16(at + 6) : 0;
      for (let i = 0; i < nPairs; i++) {
        const p = at + 14 + i * 6;
        const key = kern.uint16(p) * 65536 + kern.uint16(p + 2);
        const value = kern.int16(p + 4);
        pairs.set(key, (coverage & OVERRIDE) !== 0 ? value : (pairs.get(key) ?? 0) + value);
      }
      // The 16-bit length overflows for big subtables; the pair count is authoritative.
      at += usable ? Math.max(length, 14 + nPairs * 6) : length;
    }
  }
  return (left, right) => pairs.get(left * 65536 + right) ?? 0;
}

/**
 * Entropy-coding model of the baseline sequential scan (T.81 F.1.2): turns
 * quantised blocks into the exact sequence of Huffman symbols and appended
 * bits, counting each symbol as it goes so that optimised tables (Annex K.2)
 * cost no extra pass over the coefficients.
 *
 * Each symbol is one 32-bit record: `(entry << 16) | bits`, where
 * entry = slot * 256 + symbol names the symbol in one of four Huffman tables
 * and `bits` are the additional bits that follow its code (F.1.2.1.1,
 * F.1.2.2.1), already reduced to their length. The slots are DC and AC of
 * table 0 (luma) as 0 and 1, DC and AC of table 1 (chroma) as 2 and 3: a
 * component with table t codes its DC in slot 2t and its AC in slot 2t + 1.
 */
import type { DctBlock } from './dct.js';
import { quantizeBy, type QuantDivisors } from './quantize.js';
import type { SpareBuffers } from './spare-buffers.js';
import { ZIGZAG_ROW_MARKS } from './zigzag.js';

/** Number of Huffman table slots (DC and AC for two tables). */
export const SLOT_COUNT = 4;

/** Symbol of the end-of-block code (F.1.2.2.1). */
export const EOB = 0x00;
/** Symbol of the run of 16 zero coefficients (F.1.2.2.1). */
export const ZRL = 0xf0;

/** Growable list of symbol records plus per-slot symbol counts. */
export class SymbolStream {
  records: Int32Array;
  length = 0;
  /**
   * Frequencies of each slot's symbols: index = slot * 256 + symbol. Float64
   * because a 65535 x 65535 image has up to 2^32 blocks' worth of symbols.
   */
  readonly counts = new Float64Array(SLOT_COUNT * 256);
  /** Record indices before which a restart marker goes (T.81 B.2.1). */
  restarts: number[] = [];

  /** Where the record storage comes from and goes back to; none: new storage, dropped after. */
  private readonly spares: SpareBuffers | undefined;

  constructor(initialCapacity = 1 << 16, spares?: SpareBuffers) {
    this.spares = spares;
    this.records = spares ? spares.takeRecords(initialCapacity) : new Int32Array(initialCapacity);
  }

  /** Hands the record storage back to the spares, if any; the stream is empty afterwards. */
  release(): void {
    this.spares?.keepRecords(this.records);
    this.records = new Int32Array(0);
    this.clearRecords();
  }

  /** Makes room for at least `extra` more records. */
  reserve(extra: number): void {
    if (this.length + extra <= this.records.length) return;
    const grown = new Int32Array(Math.max(this.records.length * 2, this.length + extra));
    grown.set(this.records.subarray(0, this.length));
    this.records = grown;
  }

  /** Forgets the records (keeping counts) once they have been written. */
  clearRecords(): void {
    this.length = 0;
    this.restarts = [];
  }

  /** Marks that a restart interval ends here. */
  markRestart(): void {
    this.restarts.push(this.length);
  }
}

/** Most records one block can add: DC, then at most 63 AC, ZRL and EOB symbols in all, plus slack. */
export const MAX_RECORDS_PER_BLOCK = 68;

/**
 * Quantises one transformed block (see dct.ts) with `q` (see quantize.ts),
 * appends its symbols and returns its quantised DC, the next predictor
 * (F.1.2.1.3). The DCT has marked the coefficients that quantise to non-zero;
 * their marks, moved to zig-zag order, are walked lowest first, so only those
 * coefficients are read, divided and coded, the zero runs between them being
 * the gaps between marks. The caller must have reserved
 * {@link MAX_RECORDS_PER_BLOCK} records.
 */
export function addBlock(
  stream: SymbolStream, block: DctBlock, q: QuantDivisors, predictor: number, dcSlot: number,
): number {
  const coefficients = block.coefficients;
  const order = q.zigzag;
  const dc = quantizeDc(coefficients[0]!, q.divisor[0]!);
  // The stream's fields are read once and its length written once per block.
  const { records, counts } = stream;
  let n = putDc(records, counts, stream.length, dc - predictor, dcSlot);
  const slot = (dcSlot + 1) << 8;
  let previous = 0; // zig-zag position of the last coded coefficient (0 = DC)
  const { low, high } = zigzagMarks(block.marksLow, block.marksHigh);
  // Marks of positions 1..31 (the DC is coded above), then of 32..63.
  for (let base = 0, marks = low & ~1; base < 64; base += 32, marks = high) {
    while (marks !== 0) {
      const bit = marks & -marks; // lowest mark
      marks ^= bit;
      const k = base + 31 - Math.clz32(bit);
      // k - previous - 1 zeros precede it: a ZRL per 16, the rest in RRRR.
      let run = k - previous - 1;
      for (; run > 15; run -= 16) {
        records[n++] = (slot | ZRL) << 16;
        counts[slot | ZRL]!++;
      }
      const place = order[k]!; // natural index | divisor << 8
      const v = coefficients[place & 63]!;
      const d = place >> 8;
      const sign = v >> 31; // 0 or -1
      // |v| + d / 2 is below 2^14 (quantize.ts), so `| 0` changes nothing but spares the
      // JIT its two overflow checks; the division is exact for such dividends.
      const level = ((((v ^ sign) - sign + (d >> 1)) | 0) / d) | 0;
      const size = 32 - Math.clz32(level);
      const entry = slot | (run << 4) | size;
      // RRRRSSSS, then SSSS bits: those of level, or of level - 1 (= ~|level|) if negative.
      records[n++] = (entry << 16) | ((level ^ sign) & ((1 << size) - 1));
      counts[entry]!++;
      previous = k;
    }
  }
  stream.length = previous < 63 ? putEob(records, counts, n, dcSlot) : n;
  return dc;
}

/**
 * The zig-zag row marks, read as a module constant rather than through an
 * import binding: the JIT then knows its type and length once and for all.
 */
const ROW_MARKS = ZIGZAG_ROW_MARKS;
/** The DC's quantiser (quantize.ts), read the same way. */
const quantizeDc = quantizeBy;
/** Where rows 4..7 start in ROW_MARKS. */
const HIGH_ROWS = 4 * 256 * 2;

/**
 * Natural-order marks (see DctBlock) moved to zig-zag order, a row of 8 at a
 * time, visiting only the rows that have a mark: after quantisation most
 * rows are empty (a poster's block has one or two marked rows at quality
 * 85), and the empty ones cost nothing. Rows 0..3 are in the low word, 4..7
 * in the high one.
 */
const zigzagMarks = (naturalLow: number, naturalHigh: number): { low: number; high: number } => {
  let low = 0;
  let high = 0;
  for (let rest = naturalLow, rows = 0; ; rest = naturalHigh, rows = HIGH_ROWS) {
    while (rest !== 0) {
      const shift = (31 - Math.clz32(rest & -rest)) & ~7; // bit offset of the lowest marked row
      const byte = (rest >>> shift) & 255;
      rest ^= byte << shift;
      const i = rows + ((shift << 6) | (byte << 1)); // 2 * (row * 256 + byte), row = shift / 8
      low |= ROW_MARKS[i]!;
      high |= ROW_MARKS[i + 1]!;
    }
    if (rows !== 0) return { low, high };
  }
};

/**
 * Writes the DC difference at `records[n]` as category SSSS then SSSS bits
 * (F.1.2.1.1, Table F.1; a negative difference sends the low bits of
 * diff - 1), counts it and returns the next free index. A const: a declared
 * function's binding can be reassigned, so compiled callers re-checked it.
 */
const putDc = (records: Int32Array, counts: Float64Array, n: number, diff: number, dcSlot: number): number => {
  const size = 32 - Math.clz32(Math.abs(diff));
  const entry = (dcSlot << 8) | size;
  records[n] = (entry << 16) | ((diff < 0 ? diff - 1 : diff) & ((1 << size) - 1));
  counts[entry]!++;
  return n + 1;
};

/** Writes the end-of-block symbol at `records[n]` (the remaining coefficients are zero); returns n + 1. */
const putEob = (records: Int32Array, counts: Float64Array, n: number, dcSlot: number): number => {
  const entry = ((dcSlot + 1) << 8) | EOB;
  records[n] = entry << 16;
  counts[entry]!++;
  return n + 1;
};

/**
 * Appends a block whose AC coefficients are all zero and whose DCT output 0
 * is `dct0` (see `uniformBlockDc` in dct.ts): its DC difference and an EOB.
 * Returns the quantised DC, the next predictor.
 */
export function addDcOnlyBlock(
  stream: SymbolStream, dct0: number, q: QuantDivisors, predictor: number, dcSlot: number,
): number {
  const dc = quantizeDc(dct0, q.divisor[0]!);
  const { records, counts } = stream;
  stream.length = putEob(records, counts, putDc(records, counts, stream.length, dc - predictor, dcSlot), dcSlot);
  return dc;
}

/**
 * Appends a block outside the image that only completes an MCU (a "dummy"
 * block; T.81 A.2.4 leaves its content to the encoder). Like libjpeg, its DC
 * repeats the previous block's DC, which within an MCU is the predictor, and
 * all its AC coefficients are zero: a DC difference of 0 and an EOB.
 */
export function addDummyBlock(stream: SymbolStream, dcSlot: number): void {
  const { records, counts } = stream;
  stream.length = putEob(records, counts, putDc(records, counts, stream.length, 0, dcSlot), dcSlot);
}

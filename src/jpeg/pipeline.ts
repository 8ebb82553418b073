/**
 * The order of the encoder's work: headers, then the scan in one or two
 * passes over the image, each pass fusing colour conversion, DCT and entropy
 * modelling per MCU row.
 *
 * With optimised tables (Annex K.2) the symbol counts of the whole image
 * must be known before the first DHT is written. Up to STORE_LIMIT_PIXELS
 * the symbols of the first pass are kept and written afterwards; larger
 * images are modelled twice instead, counting only the first time, so memory
 * stays bounded by one MCU row.
 */
import { BitWriter } from './bit-writer.js';
import { McuRowConverter } from './mcu-rows.js';
import { planFrame, type FrameLayout } from './frame.js';
import {
  optimalHuffmanSpec, STD_AC_CHROMA, STD_AC_LUMA, STD_DC_CHROMA, STD_DC_LUMA, symbolCodes, type HuffmanSpec,
} from './huffman.js';
import {
  writeComment, writeDht, writeDqt, writeDri, writeEoi, writeJfifApp0, writeSof0, writeSoi, writeSos,
} from './markers.js';
import { makeQuantDivisors, scaleQuantTable, STD_CHROMA_QUANT, STD_LUMA_QUANT, type QuantDivisors } from './quantize.js';
import { ScanModel } from './scan.js';
import type { SpareBuffers } from './spare-buffers.js';
import { SymbolStream } from './symbols.js';
import type { EncodeSettings } from './validate.js';

/** Records a kept first pass starts with room for, per block. */
const RECORDS_PER_BLOCK = 5;

/** Largest image (in pixels) whose symbols are kept between the passes: 16 Mi. */
export const STORE_LIMIT_PIXELS = 1 << 24;

/** What every pass needs. */
interface Frame {
  readonly settings: EncodeSettings;
  readonly layout: FrameLayout;
  readonly divisors: QuantDivisors[];
  /** 1 for grey, 2 for colour: quantisation and Huffman table pairs. */
  readonly tableCount: number;
  /** The encoder's kept storage, or none for a one-off encode. */
  readonly spares: SpareBuffers | undefined;
  /** The scan models, symbol streams and bit writer this encode makes, for the spares to keep. */
  readonly workingObjects: object[];
}

/**
 * Encodes validated settings into a complete JFIF file; `storeLimitPixels`
 * (for tests) chooses between keeping and recomputing the first pass, and
 * `spares` is the storage of the encoder that owns it (see JpegEncoder).
 */
export function encodeFrame(settings: EncodeSettings, storeLimitPixels = STORE_LIMIT_PIXELS, spares?: SpareBuffers): Uint8Array {
  const { width, height, channels } = settings;
  const layout = planFrame(width, height, channels === 1 ? 'grey' : settings.subsampling);
  const tableCount = layout.components.length === 1 ? 1 : 2;
  const quantTables = [STD_LUMA_QUANT, STD_CHROMA_QUANT]
    .slice(0, tableCount)
    .map((base) => scaleQuantTable(base, settings.quality));
  const out = new BitWriter(Math.min(Math.max(1024, (width * height) >> 2), 1 << 24), spares);
  const frame: Frame = {
    settings, layout, divisors: quantTables.map(makeQuantDivisors), tableCount, spares, workingObjects: [out],
  };

  writeHeaders(out, frame, quantTables);
  if (!settings.optimizeHuffman) {
    writeScan(out, frame, [STD_DC_LUMA, STD_AC_LUMA, STD_DC_CHROMA, STD_AC_CHROMA].slice(0, 2 * tableCount));
  } else if (width * height <= storeLimitPixels) {
    const stream = modelImage(frame, true);
    const tables = optimisedTables(stream.counts, tableCount);
    writeScanHeaders(out, frame, tables);
    out.writeSymbols(stream, symbolCodes(tables));
    stream.release();
  } else {
    const counting = modelImage(frame, false);
    counting.release();
    writeScan(out, frame, optimisedTables(counting.counts, tableCount));
  }
  out.flushBits();
  writeEoi(out);
  const bytes = out.toBytes();
  spares?.keepWorkingObjects(frame.workingObjects);
  return bytes;
}

/** SOI, APP0, optional COM, one DQT per table, SOF0: the order cjpeg uses. */
function writeHeaders(out: BitWriter, frame: Frame, quantTables: Uint8Array[]): void {
  writeSoi(out);
  writeJfifApp0(out);
  if (frame.settings.comment !== undefined) writeComment(out, frame.settings.comment);
  quantTables.forEach((table, id) => writeDqt(out, id, table));
  writeSof0(out, frame.layout);
}

/** One DHT per table (DC then AC of table 0, then of table 1), DRI if restarts are on, SOS. */
function writeScanHeaders(out: BitWriter, frame: Frame, tables: HuffmanSpec[]): void {
  tables.forEach((table, slot) => writeDht(out, (slot % 2) as 0 | 1, slot >> 1, table));
  if (frame.settings.restartInterval > 0) writeDri(out, frame.settings.restartInterval);
  writeSos(out, frame.layout);
}

/** Runs one pass over all MCU rows, handing each row's symbols to `rowDone`. */
function eachMcuRow(frame: Frame, stream: SymbolStream, rowDone: (stream: SymbolStream) => void): void {
  const { settings, layout } = frame;
  const converter = new McuRowConverter(settings, layout);
  const scan = new ScanModel(layout, frame.divisors, settings.restartInterval);
  // Not the converter: it holds the caller's image, and its compiled code runs once an MCU row.
  frame.workingObjects.push(scan, stream);
  for (let row = 0; row < layout.mcusHigh; row++) {
    converter.fill(row);
    scan.addMcuRow(row, stream);
    rowDone(stream);
  }
}

/**
 * First pass with optimised tables: counts every symbol, and keeps the
 * symbols themselves if `keep` (otherwise each row's are dropped once counted).
 */
function modelImage(frame: Frame, keep: boolean): SymbolStream {
  const { mcusWide, mcusHigh, components } = frame.layout;
  // Typical images need 3 to 10 records a block; the storage grows (doubling, with a copy) as
  // needed. Counted by blocks, so 4:4:4's three full-size components start with room for them:
  // the typical poster's 413,000 records at 4:4:4 fit 5 a block (was 1 per 8 pixels, 342,562,
  // which grew to twice that: 4.1 MB held at once instead of 2.6).
  const blocksPerMcu = components.reduce((sum, c) => sum + c.h * c.v, 0);
  const capacity = keep ? Math.min(Math.max(1024, mcusWide * mcusHigh * blocksPerMcu * RECORDS_PER_BLOCK), 1 << 22) : mcusWide * 64;
  const stream = new SymbolStream(capacity, frame.spares);
  eachMcuRow(frame, stream, (s) => {
    if (!keep) s.clearRecords();
  });
  return stream;
}

/** Writes the scan headers, then models and writes the scan one MCU row at a time. */
function writeScan(out: BitWriter, frame: Frame, tables: HuffmanSpec[]): void {
  writeScanHeaders(out, frame, tables);
  const codes = symbolCodes(tables);
  const stream = new SymbolStream(frame.layout.mcusWide * 64, frame.spares);
  eachMcuRow(frame, stream, (s) => {
    out.writeSymbols(s, codes);
    s.clearRecords();
  });
  stream.release();
}

/** Annex K.2 tables for slots DC0, AC0 (and DC1, AC1) from the first pass's counts. */
function optimisedTables(counts: Float64Array, tableCount: number): HuffmanSpec[] {
  const tables: HuffmanSpec[] = [];
  for (let slot = 0; slot < 2 * tableCount; slot++) {
    tables.push(optimalHuffmanSpec(counts.subarray(slot * 256, slot * 256 + 256)));
  }
  return tables;
}

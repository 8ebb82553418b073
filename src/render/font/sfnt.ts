/**
 * The sfnt container of a TrueType font: the table directory and bounds-checked big-endian
 * reads (TrueType reference manual, "The font file"; OpenType spec, "Organization of an
 * OpenType Font").
 */

/** A font file that cannot be read as a TrueType font: a missing table, a read out of bounds. */
export class FontFormatError extends Error {
  override readonly name = 'FontFormatError';
}

/** Where one table lies in the file. */
export interface TableRecord {
  readonly offset: number;
  readonly length: number;
}

/** A table's bytes, with reads relative to the table start that throw `FontFormatError` past its end. */
export class TableReader {
  readonly #view: DataView;
  readonly tag: string;
  readonly length: number;

  constructor(bytes: Uint8Array, tag: string, record: TableRecord) {
    if (record.offset + record.length > bytes.byteLength) {
      throw new FontFormatError(`table '${tag}' ends past the end of the file`);
    }
    this.tag = tag;
    this.length = record.length;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset + record.offset, record.length);
  }

  #check(offset: number, size: number): void {
    if (offset < 0 || offset + size > this.length) {
      throw new FontFormatError(`read of ${size} bytes at ${offset} is outside table '${this.tag}' (${this.length} bytes)`);
    }
  }

  uint8(offset: number): number {
    this.#check(offset, 1);
    return this.#view.getUint8(offset);
  }

  int8(offset: number): number {
    this.#check(offset, 1);
    return this.#view.getInt8(offset);
  }

  uint16(offset: number): number {
    this.#check(offset, 2);
    return this.#view.getUint16(offset);
  }

  int16(offset: number): number {
    this.#check(offset, 2);
    return this.#view.getInt16(offset);
  }

  uint32(offset: number): number {
    this.#check(offset, 4);
    return this.#view.getUint32(offset);
  }

  /** F2Dot14: signed 2.14 fixed point, used by composite glyph transforms. */
  f2dot14(offset: number): number {
    return this.int16(offset) / 16384;
  }
}

const TRUETYPE_VERSIONS: ReadonlySet<number> = new Set([0x00010000, 0x74727565 /* 'true' */]);

/** Reads the table directory; throws `FontFormatError` unless the file holds TrueType outlines. */
export function readTableDirectory(bytes: Uint8Array): Map<string, TableRecord> {
  if (bytes.byteLength < 12) throw new FontFormatError('file too short for an sfnt header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(0);
  if (!TRUETYPE_VERSIONS.has(version)) {
    throw new FontFormatError(`sfnt version 0x${version.toString(16)} is not TrueType outlines`);
  }
  const numTables = view.getUint16(4);
  if (12 + numTables * 16 > bytes.byteLength) throw new FontFormatError('table directory is truncated');
  const tables = new Map<string, TableRecord>();
  for (let i = 0; i < numTables; i++) {
    const at = 12 + i * 16;
    const tag = String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
    tables.set(tag, { offset: view.getUint32(at + 8), length: view.getUint32(at + 12) });
  }
  return tables;
}

/** The reader of a table that must be present. */
export function requireTable(bytes: Uint8Array, tables: Map<string, TableRecord>, tag: string): TableReader {
  const record = tables.get(tag);
  if (record === undefined) throw new FontFormatError(`required table '${tag}' is missing`);
  return new TableReader(bytes, tag, record);
}

/** The reader of an optional table, or undefined. */
export function optionalTable(bytes: Uint8Array, tables: Map<string, TableRecord>, tag: string): TableReader | undefined {
  const record = tables.get(tag);
  return record === undefined ? undefined : new TableReader(bytes, tag, record);
}

/**
 * Marker segments of a baseline sequential JFIF file (T.81 B.1.1, B.2, B.3;
 * JFIF 1.02 for APP0). Each writer emits the marker, the segment length
 * (which counts itself but not the marker, B.1.1.4) and the parameters.
 */
import type { BitWriter } from './bit-writer.js';
import type { FrameLayout } from './frame.js';
import type { HuffmanSpec } from './huffman.js';
import { ZIGZAG } from './zigzag.js';

/** Marker codes (T.81 Table B.1). */
export const SOI = 0xd8;
export const EOI = 0xd9;
export const SOF0 = 0xc0;
export const DHT = 0xc4;
export const DQT = 0xdb;
export const DRI = 0xdd;
export const SOS = 0xda;
export const APP0 = 0xe0;
export const COM = 0xfe;

/** Longest COM payload: the 16-bit length field counts its own 2 bytes. */
export const MAX_COMMENT_BYTES = 0xffff - 2;

function beginSegment(out: BitWriter, marker: number, payloadLength: number): void {
  out.writeByte(0xff);
  out.writeByte(marker);
  out.writeUint16(payloadLength + 2);
}

/** SOI: start of image (B.2.1). */
export function writeSoi(out: BitWriter): void {
  out.writeByte(0xff);
  out.writeByte(SOI);
}

/** EOI: end of image (B.2.1). */
export function writeEoi(out: BitWriter): void {
  out.writeByte(0xff);
  out.writeByte(EOI);
}

/**
 * APP0 JFIF header, version 1.01 (as libjpeg writes by default): no density
 * unit, 1:1 pixel aspect ratio, no thumbnail.
 */
export function writeJfifApp0(out: BitWriter): void {
  beginSegment(out, APP0, 14);
  out.writeBytes([0x4a, 0x46, 0x49, 0x46, 0x00]); // "JFIF\0"
  out.writeBytes([1, 1]); // version 1.01
  out.writeByte(0); // density units: none, aspect ratio only
  out.writeUint16(1); // X density
  out.writeUint16(1); // Y density
  out.writeBytes([0, 0]); // no thumbnail
}

/** COM: comment bytes (B.2.4.5), at most {@link MAX_COMMENT_BYTES}. */
export function writeComment(out: BitWriter, bytes: Uint8Array): void {
  beginSegment(out, COM, bytes.length);
  out.writeBytes(bytes);
}

/**
 * DQT with one 8-bit table (B.2.4.1: Pq = 0, Tq = `id`); the table is given in
 * natural order and sent in zig-zag order.
 */
export function writeDqt(out: BitWriter, id: number, table: Uint8Array): void {
  beginSegment(out, DQT, 1 + 64);
  out.writeByte(id);
  for (let k = 0; k < 64; k++) out.writeByte(table[ZIGZAG[k]!]!);
}

/** SOF0: baseline DCT frame header (B.2.2), 8-bit samples. */
export function writeSof0(out: BitWriter, layout: FrameLayout): void {
  const { components } = layout;
  beginSegment(out, SOF0, 6 + 3 * components.length);
  out.writeByte(8);
  out.writeUint16(layout.height);
  out.writeUint16(layout.width);
  out.writeByte(components.length);
  for (const c of components) {
    out.writeByte(c.id);
    out.writeByte((c.h << 4) | c.v);
    out.writeByte(c.table);
  }
}

/** DHT with one table (B.2.4.2): class 0 = DC, 1 = AC; `id` = Th. */
export function writeDht(out: BitWriter, tableClass: 0 | 1, id: number, table: HuffmanSpec): void {
  beginSegment(out, DHT, 1 + 16 + table.values.length);
  out.writeByte((tableClass << 4) | id);
  out.writeBytes(table.bits);
  out.writeBytes(table.values);
}

/** DRI: restart interval in MCUs (B.2.4.4). */
export function writeDri(out: BitWriter, interval: number): void {
  beginSegment(out, DRI, 2);
  out.writeUint16(interval);
}

/**
 * SOS for one scan over every component (B.2.3), each using the DC and AC
 * tables of its own table number; Ss = 0, Se = 63, Ah = Al = 0 (sequential).
 */
export function writeSos(out: BitWriter, layout: FrameLayout): void {
  const { components } = layout;
  beginSegment(out, SOS, 1 + 2 * components.length + 3);
  out.writeByte(components.length);
  for (const c of components) {
    out.writeByte(c.id);
    out.writeByte((c.table << 4) | c.table);
  }
  out.writeBytes([0, 63, 0]);
}

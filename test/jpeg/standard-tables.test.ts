/**
 * The Annex K Huffman tables symbol by symbol: a swap of two symbols of the same code length
 * keeps every count and length right and still breaks every decoder, so each table's HUFFVAL
 * order is checked whole. Tables K.5 and K.6 list the codes shorter than 16 bits first (below,
 * transcribed in the order the tables print them); the 16-bit codes are every other run/size
 * symbol in ascending order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STD_AC_CHROMA, STD_AC_LUMA, STD_DC_CHROMA, STD_DC_LUMA, type HuffmanSpec } from '../../src/jpeg/huffman.js';

/** Every AC symbol: EOB (0x00), ZRL (0xF0) and run/size 0x01-0xFA with size 1-10 (T.81 F.1.2.2). */
const AC_SYMBOLS = [0x00, 0xf0, ...Array.from({ length: 16 }, (_, run) => Array.from({ length: 10 }, (_, s) => (run << 4) | (s + 1))).flat()];

const K5_SHORT_CODES = [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32,
  0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82,
];
const K6_SHORT_CODES = [
  0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81,
  0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34,
  0xe1, 0x25, 0xf1,
];

/** The HUFFVAL order a table must have: its short codes, then every other AC symbol ascending. */
function expectedAcValues(short: readonly number[]): number[] {
  const rest = AC_SYMBOLS.filter((s) => !short.includes(s)).sort((a, b) => a - b);
  return [...short, ...rest];
}

function values(table: HuffmanSpec): number[] {
  return Array.from(table.values);
}

describe('the Annex K Huffman tables', () => {
  it('list the DC categories 0-11 in order (Tables K.3 and K.4)', () => {
    const categories = Array.from({ length: 12 }, (_, i) => i);
    assert.deepEqual(values(STD_DC_LUMA), categories);
    assert.deepEqual(values(STD_DC_CHROMA), categories);
  });

  it('hold Table K.5 symbol for symbol (luminance AC)', () => {
    assert.deepEqual(values(STD_AC_LUMA), expectedAcValues(K5_SHORT_CODES));
  });

  it('hold Table K.6 symbol for symbol (chrominance AC)', () => {
    assert.deepEqual(values(STD_AC_CHROMA), expectedAcValues(K6_SHORT_CODES));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  huffmanCodes, optimalHuffmanSpec, STD_AC_CHROMA, STD_AC_LUMA, STD_DC_CHROMA, STD_DC_LUMA, symbolCodes,
  type HuffmanSpec,
} from '../../src/jpeg/huffman.js';

/** Code of `symbol` as a bit string, e.g. '1010'. */
function codeOf(table: HuffmanSpec, symbol: number): string {
  const { code, size } = huffmanCodes(table);
  assert.ok(size[symbol] > 0, `symbol ${symbol.toString(16)} has a code`);
  return code[symbol].toString(2).padStart(size[symbol], '0');
}

function frequencies(entries: Array<[number, number]>): Int32Array {
  const freq = new Int32Array(256);
  for (const [symbol, count] of entries) freq[symbol] = count;
  return freq;
}

describe('huffman', () => {
  it('holds the 162 AC and 12 DC symbols of the Annex K.3 tables', () => {
    const sum = (t: HuffmanSpec): number => t.bits.reduce((a, b) => a + b, 0);
    for (const [name, table, count] of [['K.3', STD_DC_LUMA, 12], ['K.4', STD_DC_CHROMA, 12], ['K.5', STD_AC_LUMA, 162], ['K.6', STD_AC_CHROMA, 162]] as const) {
      assert.equal(sum(table), count, name);
      assert.equal(table.values.length, count, name);
      assert.equal(new Set(table.values).size, count, name);
    }
  });

  it('assigns the luminance DC codes printed in Table K.3', () => {
    const expected = ['00', '010', '011', '100', '101', '110', '1110', '11110', '111110', '1111110', '11111110', '111111110'];
    expected.forEach((code, category) => assert.equal(codeOf(STD_DC_LUMA, category), code, `category ${category}`));
  });

  it('assigns the chrominance DC codes printed in Table K.4', () => {
    const expected = ['00', '01', '10', '110', '1110', '11110', '111110', '1111110', '11111110', '111111110', '1111111110', '11111111110'];
    expected.forEach((code, category) => assert.equal(codeOf(STD_DC_CHROMA, category), code, `category ${category}`));
  });

  it('assigns the AC codes printed in Tables K.5 and K.6', () => {
    const cases: Array<[string, HuffmanSpec, number, string]> = [
      ['K.5 EOB', STD_AC_LUMA, 0x00, '1010'],
      ['K.5 0/1', STD_AC_LUMA, 0x01, '00'],
      ['K.5 0/3', STD_AC_LUMA, 0x03, '100'],
      ['K.5 0/5', STD_AC_LUMA, 0x05, '11010'],
      ['K.5 1/1', STD_AC_LUMA, 0x11, '1100'],
      ['K.5 ZRL', STD_AC_LUMA, 0xf0, '11111111001'],
      ['K.5 F/A', STD_AC_LUMA, 0xfa, '1111111111111110'],
      ['K.6 EOB', STD_AC_CHROMA, 0x00, '00'],
      ['K.6 0/1', STD_AC_CHROMA, 0x01, '01'],
      ['K.6 0/2', STD_AC_CHROMA, 0x02, '100'],
      ['K.6 ZRL', STD_AC_CHROMA, 0xf0, '1111111010'],
      ['K.6 F/A', STD_AC_CHROMA, 0xfa, '1111111111111110'],
    ];
    for (const [name, table, symbol, code] of cases) assert.equal(codeOf(table, symbol), code, name);
  });

  it('builds Annex K.2 code lengths for a small frequency set', () => {
    // Symbols 0, 1, 2 with counts 5, 3, 1 plus the reserved code point: lengths 1, 2, 3 (and 3 reserved).
    const table = optimalHuffmanSpec(frequencies([[0, 5], [1, 3], [2, 1]]));
    assert.deepEqual([...table.bits], [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual([...table.values], [0, 1, 2]);
    assert.deepEqual([codeOf(table, 0), codeOf(table, 1), codeOf(table, 2)], ['0', '10', '110']);
  });

  it('breaks ties between equal frequencies towards the larger symbol, as libjpeg does', () => {
    // Four symbols of count 1 plus the reserved one: merging larger symbols first leaves
    // 0, 1, 2 at length 2 and 3 with the reserved code at length 3.
    const table = optimalHuffmanSpec(frequencies([[0, 1], [1, 1], [2, 1], [3, 1]]));
    assert.deepEqual([...table.bits.subarray(0, 4)], [0, 3, 1, 0]);
    assert.deepEqual([...table.values], [0, 1, 2, 3]);
  });

  it('folds code lengths over 16 bits back as in Figure K.3', () => {
    // Counts 2^i for symbols 0..17 give a chain: symbol 17 at length 1 down to symbol 0
    // (with the reserved code) at length 18. Adjust_BITS moves the 17- and 18-bit codes
    // up: lengths 1..13 keep one code each, 15 gets 2 and 16 gets 4, less the reserved one.
    const table = optimalHuffmanSpec(frequencies(Array.from({ length: 18 }, (_, i) => [i, 2 ** i])));
    assert.deepEqual([...table.bits], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 3]);
    assert.deepEqual([...table.values], Array.from({ length: 18 }, (_, i) => 17 - i));
    const { size } = huffmanCodes(table);
    assert.ok(size.every((s) => s <= 16));
    const kraft = table.values.reduce((sum, symbol) => sum + 2 ** -size[symbol], 0);
    assert.equal(kraft, 1 - 2 ** -16, 'one 16-bit code point left unused (the all-ones code)');
  });

  it('keeps every code length within 16 bits for skewed large counts', () => {
    const fib = [1, 1];
    while (fib.length < 40) fib.push(fib[fib.length - 1] + fib[fib.length - 2]);
    const table = optimalHuffmanSpec(frequencies(fib.map((count, i) => [i, count])));
    const { code, size } = huffmanCodes(table);
    assert.equal(table.values.length, 40);
    assert.ok(size.every((s) => s <= 16));
    for (const symbol of table.values) {
      assert.notEqual(code[symbol], 2 ** size[symbol] - 1, `symbol ${symbol} has an all-ones code`);
    }
  });

  it('gives a lone symbol a 1-bit code', () => {
    const table = optimalHuffmanSpec(frequencies([[7, 1000]]));
    assert.deepEqual([...table.bits.subarray(0, 2)], [1, 0]);
    assert.equal(codeOf(table, 7), '0');
  });

  it('combines each code with its additional bits for the scan writer', () => {
    const { packed } = symbolCodes([STD_DC_LUMA, STD_AC_LUMA]);
    const codes = packed.map((p) => p >>> 5);
    const lengths = packed.map((p) => p & 31);
    // DC category 3 ('100') carries 3 more bits; AC 0/3 ('100') also 3; EOB none.
    assert.equal(codes[3], 0b100 << 3);
    assert.equal(lengths[3], 6);
    assert.equal(codes[256 + 0x03], 0b100 << 3);
    assert.equal(lengths[256 + 0x03], 6);
    assert.equal(codes[256 + 0x00], 0b1010);
    assert.equal(lengths[256 + 0x00], 4);
    assert.equal(lengths[256 + 0x0b], 0, 'category 11 does not exist for AC');
  });

  it('packs the longest code with the most additional bits without losing a bit', () => {
    // A table with codes up to 16 bits: DC category 11 gets a 16-bit code, 27 bits in all.
    const bits = new Uint8Array(16);
    bits[0] = 1; // '0' for category 0
    bits[15] = 11; // 16-bit codes for categories 1..11
    const { packed } = symbolCodes([{ bits, values: Uint8Array.from({ length: 12 }, (_, i) => i) }]);
    // After '0' the 16-bit codes run from 0x8000 (Annex C): category 11's is 0x8000 + 10.
    const code = packed[11];
    assert.equal(code & 31, 27);
    assert.equal((code >>> 5) >>> 11, 0b1000000000001010);
  });
});

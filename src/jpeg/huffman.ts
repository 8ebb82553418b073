/**
 * Huffman tables: the typical tables of ITU-T T.81 Annex K.3, the code
 * assignment of Annex C, and optimised tables built from symbol frequencies
 * by the procedure of Annex K.2 (code lengths limited to 16 bits).
 */

/**
 * A table as DHT carries it (T.81 B.2.4.2): `bits[i]` codes of length i + 1
 * (BITS), then the symbols in order of increasing code length (HUFFVAL).
 */
export interface HuffmanSpec {
  readonly bits: Uint8Array;
  readonly values: Uint8Array;
}

function spec(bits: readonly number[], values: readonly number[]): HuffmanSpec {
  return { bits: Uint8Array.from(bits), values: Uint8Array.from(values) };
}

const DC_SYMBOLS: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

/** T.81 Table K.3: luminance DC differences. */
export const STD_DC_LUMA: Readonly<HuffmanSpec> = spec([0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], DC_SYMBOLS);

/** T.81 Table K.4: chrominance DC differences. */
export const STD_DC_CHROMA: Readonly<HuffmanSpec> = spec([0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], DC_SYMBOLS);

/** T.81 Table K.5: luminance AC coefficients. */
export const STD_AC_LUMA: Readonly<HuffmanSpec> = spec([0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d], [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
  0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
  0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
  0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
  0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
  0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
  0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
  0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
  0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
  0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
  0xf9, 0xfa,
]);

/** T.81 Table K.6: chrominance AC coefficients. */
export const STD_AC_CHROMA: Readonly<HuffmanSpec> = spec([0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77], [
  0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
  0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
  0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
  0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
  0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
  0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
  0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
  0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
  0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
  0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
  0xf9, 0xfa,
]);

/** Code (EHUFCO) and code length (EHUFSI) of every symbol; length 0 = absent. */
export interface HuffmanCodes {
  readonly code: Uint16Array;
  readonly size: Uint8Array;
}

/**
 * Assigns codes to a table's symbols (T.81 Annex C, Figures C.1 to C.3):
 * codes of each length are consecutive integers, and moving to the next
 * length appends a 0 bit to the next unused code.
 */
export function huffmanCodes(table: HuffmanSpec): HuffmanCodes {
  const code = new Uint16Array(256);
  const size = new Uint8Array(256);
  let next = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    const count = table.bits[length - 1]!;
    for (let i = 0; i < count; i++) {
      const symbol = table.values[k++]!;
      code[symbol] = next++;
      size[symbol] = length;
    }
    next <<= 1;
  }
  return { code, size };
}

/**
 * Builds the table for symbol frequencies `freq[0..255]` by T.81 Annex K.2:
 * Huffman's procedure (Figure K.1) over the used symbols plus one reserved
 * symbol of frequency 1, so that no code consists only of 1 bits; lengths
 * over 16 folded back (Figure K.3); the reserved code removed from the
 * longest length; symbols listed by length, then value (Figure K.4).
 * Where K.1 finds two equal least frequencies it does not say which to take;
 * like libjpeg, this takes the larger symbol value each time.
 */
export function optimalHuffmanSpec(freq: ArrayLike<number>): HuffmanSpec {
  const codeSize = codeSizes(freq);
  const maxSize = Math.max(...codeSize);
  if (maxSize === 0) return { bits: new Uint8Array(16), values: new Uint8Array(0) }; // no symbol used
  const bits = new Array<number>(Math.max(maxSize, 16) + 1).fill(0);
  for (const size of codeSize) if (size > 0) bits[size]!++;
  limitCodeLengths(bits, maxSize);
  const values: number[] = [];
  for (let size = 1; size <= maxSize; size++) {
    for (let symbol = 0; symbol < 256; symbol++) if (codeSize[symbol] === size) values.push(symbol);
  }
  return { bits: Uint8Array.from(bits.slice(1, 17)), values: Uint8Array.from(values) };
}

/** T.81 Figure K.1 (Code_size): code length of symbols 0..256 (256 = reserved). */
function codeSizes(counts: ArrayLike<number>): Int32Array {
  const freq = new Float64Array(257);
  for (let i = 0; i < 256; i++) freq[i] = counts[i]!;
  freq[256] = 1;
  const codeSize = new Int32Array(257);
  const others = new Int32Array(257).fill(-1);
  for (;;) {
    const v1 = leastFrequent(freq, -1);
    const v2 = leastFrequent(freq, v1);
    if (v2 < 0) break;
    freq[v1]! += freq[v2]!;
    freq[v2] = 0;
    // Every symbol in both merged branches moves one level deeper; then the
    // v2 chain is appended to the v1 chain.
    let v = v1;
    codeSize[v]!++;
    while (others[v]! >= 0) codeSize[(v = others[v]!)]!++;
    others[v] = v2;
    for (v = v2; v >= 0; v = others[v]!) codeSize[v]!++;
  }
  return codeSize;
}

/** The symbol with the least non-zero frequency other than `exclude`; ties go to the larger symbol. */
function leastFrequent(freq: Float64Array, exclude: number): number {
  let best = -1;
  let bestFreq = Infinity;
  for (let i = 0; i < freq.length; i++) {
    const f = freq[i]!;
    if (f > 0 && f <= bestFreq && i !== exclude) {
      best = i;
      bestFreq = f;
    }
  }
  return best;
}

/**
 * T.81 Figure K.3 (Adjust_BITS): while a length over 16 is used, take two
 * codes from it, give one to the length above it, and split a shorter code
 * into two; then drop the reserved symbol's code from the longest length.
 */
function limitCodeLengths(bits: number[], maxSize: number): void {
  for (let i = maxSize; i > 16; i--) {
    while (bits[i]! > 0) {
      let j = i - 2;
      while (bits[j] === 0) j--;
      bits[i]! -= 2;
      bits[i - 1]!++;
      bits[j + 1]! += 2;
      bits[j]!--;
    }
  }
  let longest = 16;
  while (bits[longest] === 0) longest--;
  bits[longest]!--;
}

/**
 * Code and total length of every symbol record entry (see symbols.ts) for the
 * four slots, packed in one word so that the scan writer reads once per
 * symbol: `packed[entry] >>> 5` is the Huffman code shifted left by the
 * number of additional bits the symbol carries (SSSS, the low 4 bits for AC),
 * so one OR with the record's bits gives everything to write, and
 * `packed[entry] & 31` is the number of bits to write (0: no such symbol).
 * Codes are at most 16 bits and baseline additional bits at most 11, so the
 * shifted code fits 27 bits and the word 32.
 */
export interface SymbolCodes {
  readonly packed: Int32Array;
}

/** Builds {@link SymbolCodes} from the DC and AC tables of slots 0..3. */
export function symbolCodes(slots: readonly HuffmanSpec[]): SymbolCodes {
  const packed = new Int32Array(slots.length * 256);
  slots.forEach((table, slot) => {
    const { code, size } = huffmanCodes(table);
    const isAc = slot % 2 === 1;
    for (let symbol = 0; symbol < 256; symbol++) {
      const length = size[symbol]!;
      if (length === 0) continue;
      const extra = isAc ? symbol & 15 : symbol;
      packed[slot * 256 + symbol] = (code[symbol]! << (extra + 5)) | (length + extra);
    }
  });
  return { packed };
}

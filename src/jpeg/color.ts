/**
 * Colour conversion and downsampling, fused per row: each call turns one or
 * two source rows into rows of every component's samples (mcu-rows.ts calls
 * them for each row of an MCU row).
 *
 * RGB -> YCbCr follows the JFIF 1.02 note (section "Conversion to and from
 * RGB") in 16-bit fixed point: Y rounds half up, Cb and Cr add 0.5 - 2^-16
 * so that the largest value rounds to 255, never 256. Downsampling averages 2
 * or 4 full-resolution samples with a rounding bias that alternates between
 * output columns (0, 1 for 2:1; 1, 2 for 2x2), so that halves round up and
 * down equally often instead of drifting one way. These details, and the
 * edge padding below, are what cjpeg does; the e2e tier compares whole files.
 */
/** Pixels handed to the encoder: 1 (grey), 3 (RGB) or 4 (RGBA) bytes each. */
export interface PixelSource {
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3 | 4;
}

// round(c * 2^16) for Y = 0.29900 R + 0.58700 G + 0.11400 B,
// Cb = -0.16874 R - 0.33126 G + 0.5 B + 128, Cr = 0.5 R - 0.41869 G - 0.08131 B + 128.
const Y_R = 19595;
const Y_G = 38470;
const Y_B = 7471;
const CB_R = 11059;
const CB_G = 21709;
const CR_G = 27439;
const CR_B = 5329;
/** 0.5 in 16-bit fixed point: the weight of B in Cb and of R in Cr. */
const HALF = 32768;
/** Y rounding: + 0.5. */
const Y_ROUND = HALF;
/** Cb/Cr offset and rounding: + 128 + 0.5 - 2^-16. */
const CBCR_OFFSET = (128 << 16) + HALF - 1;

/**
 * The weights of Y sum to exactly 2^16 and those of Cb and Cr to exactly 0
 * (so grey stays grey): Y_R + Y_G + Y_B = 65536, CB_R + CB_G = HALF,
 * CR_G + CR_B = HALF. Hence, in exact integer arithmetic,
 *
 *   Y_R r + Y_G g + Y_B b  = 65536 g + Y_R (r - g) + Y_B (b - g)
 *   HALF b - CB_R r - CB_G g = HALF (b - g) - CB_R (r - g)
 *   HALF r - CR_G g - CR_B b = HALF (r - g) - CR_B (b - g)
 *
 * The right-hand forms below need 4 multiplications per pixel instead of 9
 * and give identical results (the unit tests compare both for every colour).
 * Every product and sum stays within +-2^25, so Math.imul (a 32-bit multiply
 * the JIT needs no overflow check for) equals `*` here.
 * `YCC_WEIGHTS` lists the weights in the left-hand form, [R, G, B].
 */
export const YCC_WEIGHTS = Object.freeze({
  y: [Y_R, Y_G, Y_B],
  cb: [-CB_R, -CB_G, HALF],
  cr: [HALF, -CR_G, -CR_B],
  /** Added before the final `>> 16` of Y and of Cb/Cr respectively. */
  yOffset: Y_ROUND,
  cbcrOffset: CBCR_OFFSET,
});

// The right-hand forms, from g and the differences rg = r - g, bg = b - g:
// the row loops compute the differences once per pixel for all three
// outputs. Each helper is a few operations, so the JIT inlines every call in
// the loops; a per-pixel helper that produced all three (with Cb and Cr
// packed in one number) was not inlined there and ran at half this speed.
// They are consts, not function declarations: a declared function's binding
// can be reassigned, so compiled loops re-checked it at every use.

const lumaOf = (g: number, rg: number, bg: number): number =>
  ((g << 16) + Math.imul(Y_R, rg) + Math.imul(Y_B, bg) + Y_ROUND) >> 16;

const cbOf = (rg: number, bg: number): number => ((bg << 15) - Math.imul(CB_R, rg) + CBCR_OFFSET) >> 16;

const crOf = (rg: number, bg: number): number => ((rg << 15) - Math.imul(CR_B, bg) + CBCR_OFFSET) >> 16;

/**
 * Luma of one RGB pixel with the fixed-point weights above; it is also the
 * conversion cjpeg's `-grayscale` applies to RGB input.
 */
export function rgbToLuma(r: number, g: number, b: number): number {
  return lumaOf(g, r - g, b - g);
}

/** Cb of one pixel, before any downsampling. */
export function rgbToCb(r: number, g: number, b: number): number {
  return cbOf(r - g, b - g);
}

/** Cr of one pixel, before any downsampling. */
export function rgbToCr(r: number, g: number, b: number): number {
  return crOf(r - g, b - g);
}

/** Converts interleaved RGB or RGBA pixels to one grey byte per pixel. */
export function rgbToGrey(data: Uint8Array, channels: 3 | 4): Uint8Array {
  const grey = new Uint8Array(Math.floor(data.length / channels));
  for (let i = 0, p = 0; i < grey.length; i++, p += channels) {
    grey[i] = rgbToLuma(data[p]!, data[p + 1]!, data[p + 2]!);
  }
  return grey;
}

/**
 * The pixels the row conversions read: their bytes, and the same bytes as a
 * DataView for the RGB fast paths' wide reads. Made once per image: a
 * DataView made per row was a call into V8's runtime each time.
 */
export interface RowSource {
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

/** `bytes` as a {@link RowSource}. */
export function rowSourceOf(bytes: Uint8Array): RowSource {
  return { bytes, view: viewOf(bytes) };
}

/**
 * Where converted samples go: a luma row of `yLength` samples at
 * `yPlane[yStart]` (4:2:0 writes a second one right after it) and chroma rows
 * of `cLength` samples at `cStart`. Columns past the image use the last
 * pixel of the row (edge replication; T.81 A.2.4 leaves the padding to the
 * encoder). The views are the planes seen as DataViews, for the fast paths'
 * wide writes, made once with the planes (frame.ts).
 */
export interface RowTarget {
  yPlane: Uint8Array;
  yStart: number;
  yLength: number;
  cbPlane: Uint8Array;
  crPlane: Uint8Array;
  cStart: number;
  cLength: number;
  yView: DataView;
  cbView: DataView;
  crView: DataView;
}

/** Y, Cb and Cr of the pixel at `src[p]`, for the edge columns (the row loops inline them). */
function lumaAt(src: Uint8Array, p: number): number {
  return rgbToLuma(src[p]!, src[p + 1]!, src[p + 2]!);
}

function cbAt(src: Uint8Array, p: number): number {
  return rgbToCb(src[p]!, src[p + 1]!, src[p + 2]!);
}

function crAt(src: Uint8Array, p: number): number {
  return rgbToCr(src[p]!, src[p + 1]!, src[p + 2]!);
}

/** 4:4:4: one source row (byte offset `row`) to one row of each plane. */
export function convertRowH1V1(source: RowSource, row: number, channels: number, width: number, t: RowTarget): void {
  const { yPlane, yStart, cbPlane, crPlane, cStart } = t;
  const src = source.bytes;
  const done = channels === 3 ? convertRgbQuadsH1V1(source.view, row, width, t) : 0;
  for (let x = done, p = row + done * channels; x < width; x++, p += channels) {
    const g = src[p + 1]!, rg = src[p]! - g, bg = src[p + 2]! - g;
    yPlane[yStart + x] = lumaOf(g, rg, bg);
    cbPlane[cStart + x] = cbOf(rg, bg);
    crPlane[cStart + x] = crOf(rg, bg);
  }
  const last = width - 1;
  yPlane.fill(yPlane[yStart + last]!, yStart + width, yStart + t.yLength);
  cbPlane.fill(cbPlane[cStart + last]!, cStart + width, cStart + t.cLength);
  crPlane.fill(crPlane[cStart + last]!, cStart + width, cStart + t.cLength);
}

/** `bytes` seen as a DataView, for the wide reads and writes of the RGB fast paths. */
function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Four samples 0..255 as one little-endian 32-bit word, the first in the low byte. */
const word = (s0: number, s1: number, s2: number, s3: number): number => s0 | (s1 << 8) | (s2 << 16) | (s3 << 24);

/**
 * The RGB fast path of {@link convertRowH1V1}: four pixels (12 bytes) per step, read as three
 * 32-bit little-endian loads, and their Y, Cb and Cr written as one 32-bit store each. Each
 * typed-array access costs V8 a bounds check and index arithmetic, so 6 wide accesses replace
 * 4 pixel reads and 12 sample writes. Returns the
 * pixels converted (a multiple of 4).
 */
function convertRgbQuadsH1V1(view: DataView, row: number, width: number, t: RowTarget): number {
  const { yStart, cStart, yView, cbView, crView } = t;
  const quads = width >> 2;
  for (let j = 0, x = 0, p = row; j < quads; j++, x += 4, p += 12) {
    const a = view.getUint32(p, true), b = view.getUint32(p + 4, true), c = view.getUint32(p + 8, true);
    // a = r0 g0 b0 r1, b = g1 b1 r2 g2, c = b2 r3 g3 b3 (low byte first).
    const g0 = (a >>> 8) & 255, rg0 = (a & 255) - g0, bg0 = ((a >>> 16) & 255) - g0;
    const g1 = b & 255, rg1 = (a >>> 24) - g1, bg1 = ((b >>> 8) & 255) - g1;
    const g2 = b >>> 24, rg2 = ((b >>> 16) & 255) - g2, bg2 = (c & 255) - g2;
    const g3 = (c >>> 16) & 255, rg3 = ((c >>> 8) & 255) - g3, bg3 = (c >>> 24) - g3;
    yView.setUint32(yStart + x, word(lumaOf(g0, rg0, bg0), lumaOf(g1, rg1, bg1), lumaOf(g2, rg2, bg2), lumaOf(g3, rg3, bg3)), true);
    cbView.setUint32(cStart + x, word(cbOf(rg0, bg0), cbOf(rg1, bg1), cbOf(rg2, bg2), cbOf(rg3, bg3)), true);
    crView.setUint32(cStart + x, word(crOf(rg0, bg0), crOf(rg1, bg1), crOf(rg2, bg2), crOf(rg3, bg3)), true);
  }
  return 4 * quads;
}

/**
 * 4:2:2: one source row to one luma row and one row of 2:1 averaged chroma,
 * bias 0 then 1 alternating along the row.
 */
export function convertRowH2V1(source: RowSource, row: number, channels: number, width: number, t: RowTarget): void {
  const { yPlane, yStart, cbPlane, crPlane, cStart } = t;
  const src = source.bytes;
  const pairs = width >> 1;
  for (let j = 0, x = yStart, p = row; j < pairs; j++, x += 2, p += 2 * channels) {
    let g = src[p + 1]!, rg = src[p]! - g, bg = src[p + 2]! - g;
    yPlane[x] = lumaOf(g, rg, bg);
    let cb = cbOf(rg, bg), cr = crOf(rg, bg);
    g = src[p + channels + 1]!; rg = src[p + channels]! - g; bg = src[p + channels + 2]! - g;
    yPlane[x + 1] = lumaOf(g, rg, bg);
    cb += cbOf(rg, bg);
    cr += crOf(rg, bg);
    const bias = j & 1;
    cbPlane[cStart + j] = (cb + bias) >> 1;
    crPlane[cStart + j] = (cr + bias) >> 1;
  }
  // Past the last full pair, columns repeat the last pixel.
  const last = row + (width - 1) * channels;
  for (let j = pairs; j < t.cLength; j++) {
    const p = row + Math.min(2 * j, width - 1) * channels;
    const bias = j & 1;
    cbPlane[cStart + j] = (cbAt(src, p) + cbAt(src, last) + bias) >> 1;
    crPlane[cStart + j] = (crAt(src, p) + crAt(src, last) + bias) >> 1;
  }
  for (let x = 2 * pairs; x < t.yLength; x++) yPlane[yStart + x] = lumaAt(src, row + Math.min(x, width - 1) * channels);
}

/**
 * 4:2:0: two source rows (`row0`, `row1` may be the same row) to two luma
 * rows (the second at `yStart + yLength`) and one row of 2x2 averaged chroma,
 * bias 1 then 2 alternating along the row.
 */
export function convertRowsH2V2(
  source: RowSource, row0: number, row1: number, channels: number, width: number, t: RowTarget,
): void {
  const { yPlane, yStart, cbPlane, crPlane, cStart, yLength } = t;
  const src = source.bytes;
  const pairs = width >> 1;
  const done = channels === 3 ? convertRgbQuadPairsH2V2(source.view, row0, row1, pairs, t) : 0;
  for (let j = done, x = yStart + 2 * done, p = row0 + 2 * done * channels, q = row1 + 2 * done * channels; j < pairs;
    j++, x += 2, p += 2 * channels, q += 2 * channels) {
    // The four pixels: top left, top right, bottom left, bottom right.
    let g = src[p + 1]!, rg = src[p]! - g, bg = src[p + 2]! - g;
    yPlane[x] = lumaOf(g, rg, bg);
    let cb = cbOf(rg, bg), cr = crOf(rg, bg);
    g = src[p + channels + 1]!; rg = src[p + channels]! - g; bg = src[p + channels + 2]! - g;
    yPlane[x + 1] = lumaOf(g, rg, bg);
    cb += cbOf(rg, bg);
    cr += crOf(rg, bg);
    g = src[q + 1]!; rg = src[q]! - g; bg = src[q + 2]! - g;
    yPlane[x + yLength] = lumaOf(g, rg, bg);
    cb += cbOf(rg, bg);
    cr += crOf(rg, bg);
    g = src[q + channels + 1]!; rg = src[q + channels]! - g; bg = src[q + channels + 2]! - g;
    yPlane[x + yLength + 1] = lumaOf(g, rg, bg);
    cb += cbOf(rg, bg);
    cr += crOf(rg, bg);
    const bias = 1 + (j & 1);
    cbPlane[cStart + j] = (cb + bias) >> 2;
    crPlane[cStart + j] = (cr + bias) >> 2;
  }
  // Past the last full pair, columns repeat the last pixel of each row.
  const last = (width - 1) * channels;
  for (let j = pairs; j < t.cLength; j++) {
    const x = Math.min(2 * j, width - 1) * channels;
    const bias = 1 + (j & 1);
    const cb = cbAt(src, row0 + x) + cbAt(src, row0 + last) + cbAt(src, row1 + x) + cbAt(src, row1 + last);
    const cr = crAt(src, row0 + x) + crAt(src, row0 + last) + crAt(src, row1 + x) + crAt(src, row1 + last);
    cbPlane[cStart + j] = (cb + bias) >> 2;
    crPlane[cStart + j] = (cr + bias) >> 2;
  }
  for (let x = 2 * pairs; x < yLength; x++) {
    const column = Math.min(x, width - 1) * channels;
    yPlane[yStart + x] = lumaAt(src, row0 + column);
    yPlane[yStart + yLength + x] = lumaAt(src, row1 + column);
  }
}

/**
 * The RGB fast path of {@link convertRowsH2V2}: two 2x2 quads (4 pixels of each row, 12 bytes)
 * per step, each row read as three 32-bit little-endian loads; the 4 luma samples of each row go
 * out as one 32-bit store and the 2 averaged Cb and Cr as one 16-bit store each (see
 * convertRgbQuadsH1V1 for why that pays). Returns the quads converted (an even number).
 */
function convertRgbQuadPairsH2V2(view: DataView, row0: number, row1: number, pairs: number, t: RowTarget): number {
  const { yStart, cStart, yLength, yView, cbView, crView } = t;
  const steps = pairs >> 1;
  for (let j = 0, x = yStart, c = cStart, offset = 0; j < steps; j++, x += 4, c += 2, offset += 12) {
    // Chroma sums of quad 2j (pixels 0, 1 of both rows) and quad 2j + 1 (pixels 2, 3).
    let cb0 = 0, cr0 = 0, cb1 = 0, cr1 = 0;
    // Two rows in a loop rather than written out: a body twice as long is past what the JIT
    // inlines, and the colour helpers would become calls.
    for (let r = 0, p = row0 + offset, y = x; r < 2; r++, p = row1 + offset, y = x + yLength) {
      const a = view.getUint32(p, true), b = view.getUint32(p + 4, true), d = view.getUint32(p + 8, true);
      // a = r0 g0 b0 r1, b = g1 b1 r2 g2, d = b2 r3 g3 b3 (low byte first).
      const g0 = (a >>> 8) & 255, rg0 = (a & 255) - g0, bg0 = ((a >>> 16) & 255) - g0;
      const g1 = b & 255, rg1 = (a >>> 24) - g1, bg1 = ((b >>> 8) & 255) - g1;
      const g2 = b >>> 24, rg2 = ((b >>> 16) & 255) - g2, bg2 = (d & 255) - g2;
      const g3 = (d >>> 16) & 255, rg3 = ((d >>> 8) & 255) - g3, bg3 = (d >>> 24) - g3;
      yView.setUint32(y, word(lumaOf(g0, rg0, bg0), lumaOf(g1, rg1, bg1), lumaOf(g2, rg2, bg2), lumaOf(g3, rg3, bg3)), true);
      cb0 += cbOf(rg0, bg0) + cbOf(rg1, bg1);
      cr0 += crOf(rg0, bg0) + crOf(rg1, bg1);
      cb1 += cbOf(rg2, bg2) + cbOf(rg3, bg3);
      cr1 += crOf(rg2, bg2) + crOf(rg3, bg3);
    }
    // Quad 2j has bias 1, quad 2j + 1 bias 2.
    cbView.setUint16(c, ((cb0 + 1) >> 2) | (((cb1 + 2) >> 2) << 8), true);
    crView.setUint16(c, ((cr0 + 1) >> 2) | (((cr1 + 2) >> 2) << 8), true);
  }
  return 2 * steps;
}

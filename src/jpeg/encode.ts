/**
 * Baseline sequential JPEG encoder (ITU-T T.81, JFIF 1.01 file format) in
 * plain TypeScript. The pipeline, one file per stage:
 *
 *   validate.ts   input checks (a whole image's size, or a band's and its drawRows)
 *   frame.ts      components, blocks and MCUs
 *   color.ts      RGB -> YCbCr and downsampling, row by row
 *   mcu-rows.ts   those rows for each MCU row (a banded image draws them into its
 *                 band first), and the padding below the image
 *   dct.ts        accurate integer forward DCT
 *   quantize.ts   Annex K tables, quality scaling, exact rounding division
 *   scan.ts       MCU order, restart intervals, edge (dummy) blocks
 *   symbols.ts    quantisation and run-length/category symbols, counted
 *   huffman.ts    Annex K.3 tables, Annex K.2 optimised tables, Annex C codes
 *   bit-writer.ts the entropy-coded bytes, stuffing and RSTn
 *   markers.ts    the marker segments
 *   pipeline.ts   the order of all of the above
 *   zigzag.ts     the coefficient order
 *
 * For the same pixels and settings the output from the first DQT marker to
 * EOI is byte-identical to libjpeg-turbo's `cjpeg -baseline` (accurate
 * integer DCT); the e2e tests check this. A banded image (JpegBandedImage)
 * gives the same bytes as the same pixels given whole.
 */
import type { Subsampling } from './frame.js';
import { encodeFrame, STORE_LIMIT_PIXELS } from './pipeline.js';
import { SpareBuffers } from './spare-buffers.js';
import { validate } from './validate.js';

export type { Subsampling } from './frame.js';

/** Pixels to encode, rows top to bottom, interleaved channels. */
export interface JpegImage {
  /** Width in pixels, 1..65535. */
  width: number;
  /** Height in pixels, 1..65535. */
  height: number;
  /** `width * height * channels` bytes. */
  data: Uint8Array | Uint8ClampedArray;
  /** 1 = grey (one component), 3 = RGB, 4 = RGBA (alpha ignored). */
  channels: 1 | 3 | 4;
}

/**
 * Pixels produced a band of rows at a time, so the whole image never exists at once: the
 * encoder asks for the next band of rows, top to bottom, just before it converts them.
 */
export interface JpegBandedImage {
  /** Width in pixels, 1..65535. */
  width: number;
  /** Height in pixels, 1..65535. */
  height: number;
  /** 1 = grey (one component), 3 = RGB, 4 = RGBA (alpha ignored). */
  channels: 1 | 3 | 4;
  /**
   * The band: `rows * width * channels` bytes for some whole number of rows ≥ min(height, 16).
   * The encoder keeps this array from the start of the encode, so drawRows writes into it.
   */
  data: Uint8Array | Uint8ClampedArray;
  /**
   * Writes image rows [first, first + count) into `data`, row `first` at byte 0. Called in
   * order with as many whole MCU rows (8 rows each, 16 for 4:2:0) as the band holds, fewer for
   * the last band; an image modelled twice (over STORE_LIMIT_PIXELS) asks twice.
   * What it throws comes out of the encode unchanged.
   */
  drawRows(first: number, count: number): void;
}

/** Encoder settings; every field is optional. */
export interface JpegOptions {
  /** IJG quality 1..100 scaling the Annex K tables (50 = as printed). Default 85. */
  quality?: number;
  /** Chroma subsampling of colour input (ignored for grey). Default '4:2:0'. */
  subsampling?: Subsampling;
  /** Huffman tables optimised for this image (Annex K.2) instead of Annex K.3's. Default true. */
  optimizeHuffman?: boolean;
  /** MCUs per restart interval, 0..65535; 0 = no restart markers. Default 0. */
  restartInterval?: number;
  /** Text for a COM segment, at most 65533 bytes as UTF-8. */
  comment?: string;
}

/**
 * Encodes an image, whole or banded (an object with a `drawRows` property), as a baseline
 * JFIF file. Throws TypeError or RangeError, naming the field and its allowed values, for
 * invalid input.
 */
export function encodeJpeg(image: JpegImage | JpegBandedImage, options: JpegOptions = {}): Uint8Array {
  return encodeFrame(validate(image, options));
}

/**
 * An encoder for a run of images (a render worker's): what one encode leaves (the output
 * buffer, the symbol records, each within its bound in spare-buffers.ts) serves the next, the way
 * stb_image_write keeps its state in a context it is handed. Same bytes as `encodeJpeg`.
 */
export class JpegEncoder {
  readonly #spares = new SpareBuffers();

  /** Encodes like `encodeJpeg`. */
  encode(image: JpegImage | JpegBandedImage, options: JpegOptions = {}): Uint8Array {
    return encodeFrame(validate(image, options), STORE_LIMIT_PIXELS, this.#spares);
  }

  /**
   * Frees the kept buffers now rather than at the next full garbage collection (see
   * SpareBuffers.release), for an encoder that was made for one image. It can still encode.
   */
  release(): void {
    this.#spares.release();
  }
}

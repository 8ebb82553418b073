/**
 * Checks the encoder's input before anything is written, so bad input gets a
 * TypeError (wrong type) or RangeError (wrong value) naming the field and the
 * allowed values, never a corrupt file.
 */
import type { Subsampling } from './frame.js';
import { MAX_COMMENT_BYTES } from './markers.js';

/** Largest width or height: SOF0 stores each in 16 bits, and 0 is not allowed here. */
export const MAX_DIMENSION = 65535;
/** Largest restart interval: DRI stores it in 16 bits (B.2.4.4). */
export const MAX_RESTART_INTERVAL = 65535;

const SUBSAMPLINGS: readonly Subsampling[] = ['4:2:0', '4:2:2', '4:4:4'];

/** Input and options after validation, with defaults applied. */
export interface EncodeSettings {
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 3 | 4;
  /** The whole image, or for a banded image its band (rows from byte 0, refilled by drawRows). */
  readonly data: Uint8Array;
  /** A banded image's drawRows, called on the image; undefined for a whole image. */
  readonly drawRows: ((first: number, count: number) => void) | undefined;
  readonly quality: number;
  readonly subsampling: Subsampling;
  readonly optimizeHuffman: boolean;
  readonly restartInterval: number;
  readonly comment: Uint8Array | undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return Object.prototype.toString.call(value);
}

/** An integer in [min, max]: TypeError if not a number, RangeError otherwise. */
function integerIn(field: string, value: unknown, min: number, max: number): number {
  const expected = `${field} must be an integer from ${min} to ${max}`;
  if (typeof value !== 'number') throw new TypeError(`${expected}, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${expected}, got ${describe(value)}`);
  }
  return value;
}

function pixelData(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof Uint8ClampedArray) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`image.data must be a Uint8Array or Uint8ClampedArray, got ${describe(value)}`);
}

function channelCount(value: unknown): 1 | 3 | 4 {
  if (value === 1 || value === 3 || value === 4) return value;
  const message = `image.channels must be 1 (grey), 3 (RGB) or 4 (RGBA), got ${describe(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

function subsamplingOf(value: unknown): Subsampling {
  if (value === undefined) return '4:2:0';
  if ((SUBSAMPLINGS as readonly unknown[]).includes(value)) return value as Subsampling;
  const message = `options.subsampling must be one of '4:2:0', '4:2:2', '4:4:4', got ${describe(value)}`;
  throw typeof value === 'string' ? new RangeError(message) : new TypeError(message);
}

function commentBytes(value: unknown): Uint8Array | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new TypeError(`options.comment must be a string, got ${describe(value)}`);
  const bytes = new TextEncoder().encode(value);
  if (bytes.length > MAX_COMMENT_BYTES) {
    throw new RangeError(
      `options.comment must be at most ${MAX_COMMENT_BYTES} bytes of UTF-8 to fit one COM segment, got ${bytes.length}`,
    );
  }
  return bytes;
}

function objectOf(field: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${field} must be an object, got ${describe(value)}`);
  return value as Record<string, unknown>;
}

/**
 * Fewest rows a band must hold: the tallest MCU row (16 source rows at 4:2:0), or the whole
 * image if it is shorter. One number for every subsampling, so a caller sizes its band once.
 */
const MIN_BAND_ROWS = 16;

/** A whole image's pixels: exactly `width * height * channels` bytes. */
function checkWholeImage(data: Uint8Array, width: number, height: number, channels: number): void {
  const expected = width * height * channels;
  if (data.length !== expected) {
    throw new RangeError(
      `image.data must hold width * height * channels = ${expected} bytes, got ${data.length}`,
    );
  }
}

/** A band: whole rows of `width * channels` bytes, at least min(height, MIN_BAND_ROWS) of them. */
function checkBand(data: Uint8Array, width: number, height: number, channels: number): void {
  const rowBytes = width * channels;
  const minRows = Math.min(height, MIN_BAND_ROWS);
  if (data.length % rowBytes !== 0 || data.length < minRows * rowBytes) {
    throw new RangeError(
      `image.data of a banded image must hold whole rows of width * channels = ${rowBytes} bytes, ` +
      `at least min(height, ${MIN_BAND_ROWS}) = ${minRows} rows (${minRows * rowBytes} bytes), got ${data.length}`,
    );
  }
}

/** A banded image's drawRows, bound to the image so that a method keeps its `this`. */
function drawRowsOf(img: Record<string, unknown>): (first: number, count: number) => void {
  const drawRows = img.drawRows;
  if (typeof drawRows !== 'function') {
    throw new TypeError(`image.drawRows must be a function, got ${describe(drawRows)}`);
  }
  return (first, count) => {
    drawRows.call(img, first, count);
  };
}

/**
 * Validates an image and its options; throws TypeError or RangeError on the first problem.
 * An image with a `drawRows` property (even an undefined one) is banded (JpegBandedImage).
 */
export function validate(image: unknown, options: unknown): EncodeSettings {
  const img = objectOf('image', image);
  const opts = options === undefined ? {} : objectOf('options', options);
  const width = integerIn('image.width', img.width, 1, MAX_DIMENSION);
  const height = integerIn('image.height', img.height, 1, MAX_DIMENSION);
  const channels = channelCount(img.channels);
  const drawRows = 'drawRows' in img ? drawRowsOf(img) : undefined;
  const data = pixelData(img.data);
  if (drawRows === undefined) checkWholeImage(data, width, height, channels);
  else checkBand(data, width, height, channels);
  if (opts.optimizeHuffman !== undefined && typeof opts.optimizeHuffman !== 'boolean') {
    throw new TypeError(`options.optimizeHuffman must be a boolean, got ${describe(opts.optimizeHuffman)}`);
  }
  return {
    width,
    height,
    channels,
    data,
    drawRows,
    quality: opts.quality === undefined ? 85 : integerIn('options.quality', opts.quality, 1, 100),
    subsampling: subsamplingOf(opts.subsampling),
    optimizeHuffman: opts.optimizeHuffman !== false,
    restartInterval: opts.restartInterval === undefined
      ? 0
      : integerIn('options.restartInterval', opts.restartInterval, 0, MAX_RESTART_INTERVAL),
    comment: commentBytes(opts.comment),
  };
}

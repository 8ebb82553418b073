import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJpeg, type JpegImage, type JpegOptions } from '../../src/jpeg/encode.js';

const good: JpegImage = { width: 2, height: 2, channels: 3, data: new Uint8Array(12) };

/** Asserts that encoding throws `type` with a message matching every pattern. */
function rejects(image: unknown, options: unknown, type: typeof TypeError | typeof RangeError, ...patterns: RegExp[]): void {
  const label = `image ${summary(image)}, options ${summary(options)}`;
  assert.throws(() => encodeJpeg(image as JpegImage, options as JpegOptions), (error: unknown) => {
    assert.ok(error instanceof type, `${label}: expected ${type.name}, got ${String(error)}`);
    for (const pattern of patterns) assert.match((error as Error).message, pattern, `${label}: ${String(error)}`);
    return true;
  }, label);
}

/** Short description of a test input for assertion messages. */
function summary(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  return JSON.stringify(value, (key, v) => (key === 'data' ? `${v?.constructor?.name}(${v?.length})` : typeof v === 'string' && v.length > 20 ? `${v.length} chars` : v));
}

describe('validate', () => {
  it('rejects a zero, negative, fractional or oversized width and height with the range', () => {
    for (const field of ['width', 'height'] as const) {
      for (const value of [0, -1, 1.5, 65536, Number.NaN, Infinity]) {
        rejects({ ...good, [field]: value }, {}, RangeError, new RegExp(`image\\.${field}`), /1 to 65535/, new RegExp(`got ${value}`));
      }
      rejects({ ...good, [field]: '2' }, {}, TypeError, new RegExp(`image\\.${field}`), /integer from 1 to 65535/);
    }
  });

  it('rejects channels other than 1, 3 or 4', () => {
    for (const channels of [0, 2, 5]) rejects({ ...good, channels }, {}, RangeError, /image\.channels/, /1 \(grey\), 3 \(RGB\) or 4 \(RGBA\)/);
    rejects({ ...good, channels: '3' }, {}, TypeError, /image\.channels/);
  });

  it('rejects pixel data of the wrong type or length', () => {
    rejects({ ...good, data: [0, 0, 0] }, {}, TypeError, /image\.data/, /Uint8Array or Uint8ClampedArray/);
    rejects({ ...good, data: new Uint16Array(12) }, {}, TypeError, /image\.data/);
    rejects({ ...good, data: new Uint8Array(11) }, {}, RangeError, /image\.data/, /width \* height \* channels = 12 bytes, got 11/);
    rejects({ ...good, channels: 4 }, {}, RangeError, /= 16 bytes, got 12/);
  });

  it('rejects a missing image or options that are not an object', () => {
    rejects(undefined, {}, TypeError, /image must be an object/);
    rejects(good, 85, TypeError, /options must be an object/);
  });

  it('rejects quality 0, 101 and non-integers with the range', () => {
    for (const quality of [0, 101, 50.5, -5]) {
      rejects(good, { quality }, RangeError, /options\.quality/, /integer from 1 to 100/, new RegExp(`got ${quality}`));
    }
    rejects(good, { quality: 'high' }, TypeError, /options\.quality/);
  });

  it('rejects an unknown subsampling, naming the allowed ones', () => {
    rejects(good, { subsampling: '4:1:1' }, RangeError, /options\.subsampling/, /'4:2:0', '4:2:2', '4:4:4'/, /"4:1:1"/);
    rejects(good, { subsampling: 420 }, TypeError, /options\.subsampling/);
  });

  it('rejects a restart interval outside 0..65535 or fractional', () => {
    for (const restartInterval of [-1, 65536, 2.5]) {
      rejects(good, { restartInterval }, RangeError, /options\.restartInterval/, /integer from 0 to 65535/);
    }
  });

  it('rejects a non-boolean optimizeHuffman', () => {
    rejects(good, { optimizeHuffman: 'yes' }, TypeError, /options\.optimizeHuffman must be a boolean/);
  });

  it('rejects a comment too long for one COM segment, counting UTF-8 bytes', () => {
    rejects(good, { comment: 'x'.repeat(65534) }, RangeError, /options\.comment/, /at most 65533 bytes/, /got 65534/);
    rejects(good, { comment: 'é'.repeat(32767) }, RangeError, /got 65534/);
    rejects(good, { comment: 42 }, TypeError, /options\.comment must be a string/);
    assert.ok(encodeJpeg(good, { comment: 'x'.repeat(65533) }).length > 65533);
  });

  it('accepts the largest values of every range', () => {
    const wide = { width: 65535, height: 1, channels: 1 as const, data: new Uint8Array(65535) };
    assert.ok(encodeJpeg(wide, { quality: 100, restartInterval: 65535, subsampling: '4:4:4', optimizeHuffman: false }).length > 0);
    assert.ok(encodeJpeg({ ...good, width: 1, height: 1, data: new Uint8Array(3) }, { quality: 1 }).length > 0);
  });
});

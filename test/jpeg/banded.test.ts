import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJpeg, JpegEncoder, type JpegBandedImage, type JpegImage, type JpegOptions } from '../../src/jpeg/encode.js';
import { encodeFrame } from '../../src/jpeg/pipeline.js';
import { validate } from '../../src/jpeg/validate.js';
import { SUBSAMPLINGS } from './cases.js';
import { makeImage, random, type ImageKind, type TestImage } from './images.js';

/** A drawRows call: [first, count]. */
type DrawCall = [number, number];

/**
 * `image` served a band of `bandRows` rows at a time, every call recorded in `calls`. Before
 * each draw the band is overwritten with noise, so an encoder that read a row it had not just
 * asked for (or read at the row's offset in the whole image) would give different bytes.
 */
function bandedOf(image: TestImage, bandRows: number, calls: DrawCall[] = []): JpegBandedImage {
  const rowBytes = image.width * image.channels;
  const band = new Uint8Array(bandRows * rowBytes);
  const noise = random(bandRows);
  return {
    width: image.width,
    height: image.height,
    channels: image.channels,
    data: band,
    drawRows(first, count) {
      calls.push([first, count]);
      assert.ok(count >= 1 && count <= bandRows, `count ${count} fits the band of ${bandRows} rows`);
      assert.ok(first >= 0 && first + count <= image.height, `rows ${first}..${first + count - 1} lie in the image`);
      for (let i = 0; i < band.length; i++) band[i] = noise() * 256;
      band.set(image.data.subarray(first * rowBytes, (first + count) * rowBytes));
    },
  };
}

/** The calls an encode should make: `rowsPerCall` rows at a time, the last clipped, `passes` times. */
function expectedCalls(height: number, rowsPerCall: number, passes = 1): DrawCall[] {
  const calls: DrawCall[] = [];
  for (let pass = 0; pass < passes; pass++) {
    for (let top = 0; top < height; top += rowsPerCall) calls.push([top, Math.min(rowsPerCall, height - top)]);
  }
  return calls;
}

/** Widths and heights that are not multiples of 8 or 16, and a few that are. */
const SIZES: ReadonlyArray<[ImageKind, number, number]> = [
  ['photo', 1, 1], ['poster', 7, 7], ['detailed', 17, 17], ['photo', 33, 33], ['poster', 61, 47], ['detailed', 16, 32], ['photo', 5, 40],
];

/** Asserts a banded encode of `image` gives the whole image's bytes, for each band size. */
function assertSameBytes(image: TestImage, options: JpegOptions, name: string): void {
  const whole = encodeJpeg(image, options);
  for (const bandRows of [Math.min(image.height, 16), image.height + 5]) {
    assert.deepEqual(encodeJpeg(bandedOf(image, bandRows), options), whole, `${name}, band of ${bandRows} rows`);
  }
}

describe('banded image', () => {
  it('gives the whole image\'s bytes for RGB and RGBA at every subsampling, table choice and restart interval', () => {
    for (const [kind, width, height] of SIZES) {
      for (const channels of [3, 4] as const) {
        const image = makeImage(kind, width, height, channels);
        for (const subsampling of SUBSAMPLINGS) {
          for (const optimizeHuffman of [true, false]) {
            for (const restartInterval of [0, 3]) {
              const options = { subsampling, optimizeHuffman, restartInterval };
              assertSameBytes(image, options, `${kind} ${width}x${height}x${channels} ${JSON.stringify(options)}`);
            }
          }
        }
      }
    }
  });

  it('gives the whole image\'s bytes for grey, with either table choice and restart interval', () => {
    for (const [kind, width, height] of SIZES) {
      const image = makeImage(kind, width, height, 1);
      for (const optimizeHuffman of [true, false]) {
        for (const restartInterval of [0, 2]) {
          const options = { quality: 92, optimizeHuffman, restartInterval };
          assertSameBytes(image, options, `${kind} ${width}x${height} grey ${JSON.stringify(options)}`);
        }
      }
    }
  });

  it('reads a Uint8ClampedArray band like a Uint8Array one', () => {
    const image = makeImage('photo', 23, 29, 3);
    const banded = bandedOf(image, 16);
    const band = banded.data as Uint8Array;
    const clamped = new Uint8ClampedArray(band.buffer);
    const draw = banded.drawRows;
    const viaClamped: JpegBandedImage = { ...banded, data: clamped, drawRows: draw };
    assert.deepEqual(encodeJpeg(viaClamped, { subsampling: '4:2:2' }), encodeJpeg(image, { subsampling: '4:2:2' }));
  });

  it('asks for as many whole 16-row MCU rows as the band holds at 4:2:0, top to bottom, the last band clipped', () => {
    const calls: DrawCall[] = [];
    encodeJpeg(bandedOf(makeImage('poster', 21, 37, 3), 16, calls), { subsampling: '4:2:0' });
    assert.deepEqual(calls, [[0, 16], [16, 16], [32, 5]], 'a band of 16 rows');
    assert.deepEqual(drawCalls(makeImage('poster', 21, 37, 3), 40, {}), [[0, 32], [32, 5]], 'a band of 40 rows: two MCU rows at a time');
  });

  it('asks for as many whole 8-row MCU rows as the band holds at 4:4:4, 4:2:2 and grey', () => {
    const calls: DrawCall[] = [];
    encodeJpeg(bandedOf(makeImage('poster', 21, 20, 3), 16, calls), { subsampling: '4:4:4' });
    assert.deepEqual(calls, [[0, 16], [16, 4]]);
    const image = makeImage('photo', 9, 17, 3);
    assert.deepEqual(drawCalls(image, 17, { subsampling: '4:2:2' }), [[0, 16], [16, 1]], '4:2:2, a band of 17 rows: 16 of them used');
    assert.deepEqual(drawCalls(makeImage('photo', 9, 17, 1), 16, {}), [[0, 16], [16, 1]], 'grey');
    assert.deepEqual(drawCalls(makeImage('photo', 9, 40, 3), 20, { subsampling: '4:4:4' }), [[0, 16], [16, 16], [32, 8]], 'a band of 20 rows: 16 of them used');
  });

  it('asks for the one row of a 1-row image once at 4:2:0', () => {
    assert.deepEqual(drawCalls(makeImage('photo', 3, 1, 3), 1, {}), [[0, 1]]);
  });

  it('asks for every row twice on the two-pass path and still gives the same bytes', () => {
    // A band of 16 rows: one MCU row of 4:2:0, two of the others.
    const cases: Array<[string, 1 | 3 | 4, JpegOptions, number]> = [
      ['4:2:0', 3, { quality: 85 }, 16],
      ['4:2:2 with restarts', 4, { subsampling: '4:2:2', restartInterval: 5 }, 16],
      ['4:4:4', 3, { subsampling: '4:4:4' }, 16],
      ['grey with restarts', 1, { restartInterval: 7 }, 16],
    ];
    for (const [name, channels, options, rowsPerCall] of cases) {
      const image = makeImage('photo', 61, 45, channels);
      const calls: DrawCall[] = [];
      const bytes = encodeFrame(validate(bandedOf(image, 16, calls), options), 0);
      assert.deepEqual(bytes, encodeJpeg(image, options), `${name}: bytes`);
      assert.deepEqual(calls, expectedCalls(45, rowsPerCall, 2), `${name}: every row twice`);
    }
  });

  it('asks once when the first pass is kept, and once with the standard tables however large', () => {
    const image = makeImage('photo', 61, 45, 3);
    assert.deepEqual(drawCalls(image, 16, {}), expectedCalls(45, 16), 'kept first pass');
    const calls: DrawCall[] = [];
    const options = { optimizeHuffman: false };
    assert.deepEqual(encodeFrame(validate(bandedOf(image, 16, calls), options), 0), encodeJpeg(image, options));
    assert.deepEqual(calls, expectedCalls(45, 16), 'standard tables, over the store limit');
  });

  it('a JpegEncoder gives the same bytes for banded and whole images in a run', () => {
    const encoder = new JpegEncoder();
    const large = makeImage('detailed', 120, 90, 3);
    const small = makeImage('photo', 33, 17, 4);
    assert.deepEqual(encoder.encode(bandedOf(large, 16)), encodeJpeg(large), 'large banded');
    assert.deepEqual(encoder.encode(small, { subsampling: '4:4:4' }), encodeJpeg(small, { subsampling: '4:4:4' }), 'small whole');
    assert.deepEqual(encoder.encode(bandedOf(small, 17), { subsampling: '4:4:4' }), encodeJpeg(small, { subsampling: '4:4:4' }), 'small banded');
  });

  it('calls drawRows on the image, so a class\'s method keeps its this', () => {
    const image = makeImage('poster', 19, 21, 3);
    class Renderer {
      readonly width = image.width;
      readonly height = image.height;
      readonly channels = 3 as const;
      readonly data = new Uint8Array(16 * image.width * 3);
      drawRows(first: number, count: number): void {
        this.data.set(image.data.subarray(first * this.width * 3, (first + count) * this.width * 3));
      }
    }
    assert.deepEqual(encodeJpeg(new Renderer()), encodeJpeg(image));
  });

  it('lets an error thrown by drawRows out unchanged, on the first call or a later one', () => {
    for (const failingCall of [1, 3]) {
      const thrown = new Error('out of glyphs');
      let call = 0;
      const banded: JpegBandedImage = {
        width: 8, height: 40, channels: 3, data: new Uint8Array(16 * 8 * 3),
        drawRows() {
          if (++call === failingCall) throw thrown;
        },
      };
      assert.throws(() => encodeJpeg(banded), (error: unknown) => error === thrown, `call ${failingCall}`);
      assert.equal(call, failingCall, `no call after the one that threw (call ${failingCall})`);
    }
  });
});

describe('validate: banded image', () => {
  const band = (width: number, height: number, channels: 1 | 3 | 4, bytes: number): JpegBandedImage => ({
    width, height, channels, data: new Uint8Array(bytes), drawRows: () => {},
  });

  /** Asserts that encoding throws `type` with a message matching every pattern. */
  function rejects(image: unknown, type: typeof TypeError | typeof RangeError, ...patterns: RegExp[]): void {
    assert.throws(() => encodeJpeg(image as JpegBandedImage), (error: unknown) => {
      assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
      for (const pattern of patterns) assert.match((error as Error).message, pattern);
      return true;
    });
  }

  it('rejects a drawRows property that is missing (undefined) or not a function, naming image.drawRows', () => {
    rejects({ ...band(4, 4, 3, 48), drawRows: undefined }, TypeError, /^image\.drawRows must be a function, got undefined$/);
    rejects({ ...band(4, 4, 3, 48), drawRows: 'draw' }, TypeError, /^image\.drawRows must be a function, got "draw"$/);
    rejects({ ...band(4, 4, 3, 48), drawRows: null }, TypeError, /image\.drawRows must be a function, got null/);
  });

  it('rejects a band one row short of 16 rows, with the sizes it expected and got', () => {
    // 5 x 40 RGB: rows of 15 bytes, at least 16 rows.
    rejects(band(5, 40, 3, 15 * 15), RangeError, new RegExp(
      '^image\\.data of a banded image must hold whole rows of width \\* channels = 15 bytes, ' +
      'at least min\\(height, 16\\) = 16 rows \\(240 bytes\\), got 225$',
    ));
    assert.ok(encodeJpeg(band(5, 40, 3, 15 * 16)).length > 0, 'exactly 16 rows');
  });

  it('asks a short image for all of its rows, not 16', () => {
    rejects(band(5, 7, 1, 5 * 6), RangeError, /= 5 bytes, at least min\(height, 16\) = 7 rows \(35 bytes\), got 30$/);
    assert.ok(encodeJpeg(band(5, 7, 1, 5 * 7)).length > 0, 'exactly the image\'s 7 rows');
    rejects(band(5, 7, 1, 0), RangeError, /got 0$/);
  });

  it('rejects a band that is not a whole number of rows', () => {
    rejects(band(5, 40, 4, 20 * 16 + 1), RangeError, /whole rows of width \* channels = 20 bytes/, /got 321$/);
    rejects(band(5, 40, 4, 20 * 17 - 1), RangeError, /got 339$/);
  });

  it('still checks the band\'s type and size before its drawRows is ever called', () => {
    let called = false;
    const drawRows = (): void => {
      called = true;
    };
    rejects({ width: 2, height: 2, channels: 3, data: [0, 0, 0], drawRows }, TypeError, /image\.data must be a Uint8Array or Uint8ClampedArray/);
    rejects({ width: 2, height: 20, channels: 3, data: new Uint8Array(6), drawRows }, RangeError, /image\.data of a banded image/);
    assert.equal(called, false);
  });

  it('keeps a whole image\'s check and message: no drawRows property means the whole image', () => {
    const whole: JpegImage = { width: 5, height: 40, channels: 3, data: new Uint8Array(15 * 16) };
    rejects(whole, RangeError, /^image\.data must hold width \* height \* channels = 600 bytes, got 240$/);
  });
});

/** The drawRows calls of one encode of `image` banded `bandRows` rows at a time. */
function drawCalls(image: TestImage, bandRows: number, options: JpegOptions): DrawCall[] {
  const calls: DrawCall[] = [];
  encodeJpeg(bandedOf(image, bandRows, calls), options);
  return calls;
}

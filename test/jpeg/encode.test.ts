import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJpeg, JpegEncoder } from '../../src/jpeg/encode.js';
import { STD_AC_CHROMA } from '../../src/jpeg/huffman.js';
import { makeImage } from './images.js';
import { segments } from './tools.js';

/** Restart markers in the entropy-coded data, in order. */
function restartMarkers(jpeg: Uint8Array): number[] {
  const sos = segments(jpeg).find((s) => s.marker === 0xda)!;
  const found = [];
  for (let i = sos.offset + 2 + sos.length; i < jpeg.length - 2; i++) {
    if (jpeg[i] === 0xff && jpeg[i + 1] >= 0xd0 && jpeg[i + 1] <= 0xd7) found.push(jpeg[i + 1] - 0xd0);
  }
  return found;
}

describe('encode', () => {
  it('applies quality 85, 4:2:0 and optimised tables by default', () => {
    const image = makeImage('photo', 33, 21, 3);
    assert.deepEqual(encodeJpeg(image), encodeJpeg(image, { quality: 85, subsampling: '4:2:0', optimizeHuffman: true, restartInterval: 0 }));
  });

  it('ignores alpha: RGBA gives the same file as RGB', () => {
    const rgba = makeImage('poster', 19, 11, 4);
    const rgb = makeImage('poster', 19, 11, 3);
    assert.deepEqual(encodeJpeg(rgba, { subsampling: '4:2:2' }), encodeJpeg(rgb, { subsampling: '4:2:2' }));
  });

  it('reads a Uint8ClampedArray or a view at an offset like a plain Uint8Array', () => {
    const image = makeImage('detailed', 9, 7, 3);
    const expected = encodeJpeg(image);
    const clamped = new Uint8ClampedArray(image.data);
    assert.deepEqual(encodeJpeg({ ...image, data: clamped }), expected);
    const padded = new Uint8Array(image.data.length + 5);
    padded.set(image.data, 5);
    assert.deepEqual(encodeJpeg({ ...image, data: padded.subarray(5) }), expected);
  });

  it('writes the Annex K.3 tables when optimised tables are off, and a smaller file when on', () => {
    const image = makeImage('poster', 64, 48, 3);
    const standard = encodeJpeg(image, { optimizeHuffman: false });
    const dht = segments(standard).filter((s) => s.marker === 0xc4)[3];
    assert.deepEqual([...standard.subarray(dht.offset + 5, dht.offset + 2 + dht.length)], [...STD_AC_CHROMA.bits, ...STD_AC_CHROMA.values]);
    assert.ok(encodeJpeg(image).length < standard.length);
  });

  it('writes RST0..RST7 cyclically between intervals but not after the last MCU', () => {
    // 72x24 grey: 9 x 3 = 27 MCUs; every 3 MCUs gives 8 markers.
    const jpeg = encodeJpeg(makeImage('photo', 72, 24, 1), { restartInterval: 3 });
    assert.deepEqual(restartMarkers(jpeg), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(restartMarkers(encodeJpeg(makeImage('photo', 72, 24, 1), { restartInterval: 27 })), []);
  });

  it('encodes every small and odd size into a well-formed file', () => {
    for (const [width, height] of [[1, 1], [1, 17], [17, 1], [7, 9], [15, 17], [16, 16], [33, 31]]) {
      for (const subsampling of ['4:2:0', '4:2:2', '4:4:4'] as const) {
        const jpeg = encodeJpeg(makeImage('poster', width, height, 3), { subsampling });
        const markers = segments(jpeg).map((s) => s.marker);
        assert.equal(markers[markers.length - 1], 0xd9, `${width}x${height} ${subsampling}`);
        const sof = segments(jpeg).find((s) => s.marker === 0xc0)!;
        assert.equal((jpeg[sof.offset + 5] << 8) | jpeg[sof.offset + 6], height, `${width}x${height} ${subsampling}`);
        assert.equal((jpeg[sof.offset + 7] << 8) | jpeg[sof.offset + 8], width, `${width}x${height} ${subsampling}`);
      }
    }
  });

  it('gives the same bytes on every call and leaves earlier results untouched', () => {
    const small = makeImage('photo', 40, 30, 3);
    const first = encodeJpeg(small);
    const copy = first.slice();
    encodeJpeg(makeImage('detailed', 300, 200, 3), { quality: 100 }); // grows the reused buffers
    const again = encodeJpeg(small);
    assert.deepEqual(again, copy);
    assert.deepEqual(first, copy);
    again.fill(0);
    assert.deepEqual(encodeJpeg(small), copy);
  });

  it('a JpegEncoder gives encodeJpeg\'s bytes for each of a run of images, large then small, and its results stay untouched', () => {
    const encoder = new JpegEncoder();
    const large = makeImage('detailed', 300, 200, 3);
    const small = makeImage('photo', 40, 30, 3);
    const grey = makeImage('poster', 17, 9, 1);
    const first = encoder.encode(large, { quality: 100 });
    const kept = first.slice();
    assert.deepEqual(encoder.encode(small), encodeJpeg(small), 'small after large: no bytes of the large left over');
    assert.deepEqual(encoder.encode(grey, { restartInterval: 2 }), encodeJpeg(grey, { restartInterval: 2 }), 'grey with restarts');
    assert.deepEqual(encoder.encode(large, { quality: 100 }), kept, 'the large again');
    assert.deepEqual(first, kept, 'an earlier result is not reused as a buffer');
  });

  it('a released JpegEncoder still encodes, with the same bytes, and leaves its results whole', () => {
    const encoder = new JpegEncoder();
    const image = makeImage('detailed', 300, 200, 3);
    const before = encoder.encode(image);
    encoder.release();
    assert.equal(before.length, encodeJpeg(image).length, 'a result handed out before the release keeps its bytes');
    assert.deepEqual(encoder.encode(image), encodeJpeg(image), 'encodes afresh after the release');
    encoder.release();
    encoder.release();
    assert.deepEqual(encoder.encode(image), before, 'a second release in a row is harmless');
  });

  it('does not modify the input pixels', () => {
    const image = makeImage('poster', 21, 13, 4);
    const before = image.data.slice();
    encodeJpeg(image, { quality: 100 });
    assert.deepEqual(image.data, before);
  });
});

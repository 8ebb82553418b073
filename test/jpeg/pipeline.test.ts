import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJpeg, type JpegOptions } from '../../src/jpeg/encode.js';
import { encodeFrame } from '../../src/jpeg/pipeline.js';
import { validate } from '../../src/jpeg/validate.js';
import { makeImage } from './images.js';

describe('pipeline', () => {
  it('gives the same bytes when it recomputes the first pass instead of keeping it', () => {
    const cases: Array<[string, 1 | 3, JpegOptions]> = [
      ['colour 4:2:0', 3, { quality: 85 }],
      ['colour 4:2:2 with restarts', 3, { quality: 92, subsampling: '4:2:2', restartInterval: 5 }],
      ['grey with restarts', 1, { quality: 50, restartInterval: 7 }],
    ];
    for (const [name, channels, options] of cases) {
      const image = makeImage('photo', 131, 77, channels);
      const settings = validate(image, options);
      assert.deepEqual(encodeFrame(settings, 0), encodeJpeg(image, options), name);
    }
  });

  it('writes the same scan with fixed tables whether or not the image is large', () => {
    const image = makeImage('poster', 64, 40, 3);
    const settings = validate(image, { optimizeHuffman: false, restartInterval: 3 });
    assert.deepEqual(encodeFrame(settings, 0), encodeFrame(settings));
  });
});

/**
 * Our files decoded by independent tools: libjpeg-turbo's `djpeg -strict`
 * (any warning is an error) and `jpeginfo -c` (integrity check), for the same
 * case matrix as the cjpeg comparison; comments are read back with rdjpgcom. The decoded pixels must have the
 * right shape and stay close to the source: a loose floor for everything
 * (gross errors such as swapped components fall far below it) and tight ones
 * where nothing is subsampled and quality is high. Needs djpeg and jpeginfo;
 * fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rgbToGrey } from '../../src/jpeg/color.js';
import { encodeJpeg } from '../../src/jpeg/encode.js';
import { colourCases, conversionCases, greyCases, posterCases, type JpegCase } from '../jpeg/cases.js';
import type { TestImage } from '../jpeg/images.js';
import { parseNetpbm, psnr, runTool, toNetpbm, withTempDir } from '../jpeg/tools.js';

const greyOf = (rgb: TestImage): TestImage => ({ ...rgb, channels: 1, data: rgbToGrey(rgb.data, 3) });

/** Least PSNR (dB) expected after decoding; measured minima over the matrix are 5-10 dB higher. */
function psnrFloor(c: JpegCase): number {
  const full = c.image.channels === 1 || c.options.subsampling === '4:4:4';
  if (full && c.options.quality === 100) return 45;
  if (full && c.options.quality >= 85) return 22;
  return 10;
}

function assertDecodes(c: JpegCase): void {
  const jpeg = encodeJpeg(c.image, c.options);
  withTempDir((dir) => {
    const file = join(dir, 'ours.jpg');
    writeFileSync(file, jpeg);
    const info = runTool('jpeginfo', ['-c', file]).stdout.toString();
    assert.match(info, /\bOK\s*$/, `${c.name}: jpeginfo -c said ${info.trim()}`);
    assert.doesNotMatch(info, /WARNING|ERROR/, `${c.name}: jpeginfo -c said ${info.trim()}`);
    const decoded = runTool('djpeg', ['-strict', file]);
    assert.equal(decoded.stderr, '', `${c.name}: djpeg -strict warned`);
    if (c.options.comment !== undefined) {
      const comment = runTool('rdjpgcom', ['-raw', file]).stdout.toString('utf8');
      assert.equal(comment.trimEnd(), c.options.comment, `${c.name}: rdjpgcom read back`);
    }
    const pixels = parseNetpbm(decoded.stdout);
    const source = parseNetpbm(toNetpbm(c.image));
    assert.deepEqual([pixels.width, pixels.height, pixels.channels], [source.width, source.height, source.channels], c.name);
    const quality = psnr(pixels.data, source.data);
    assert.ok(quality >= psnrFloor(c), `${c.name}: PSNR ${quality.toFixed(2)} dB < ${psnrFloor(c)} dB`);
  });
}

function suite(title: string, cases: JpegCase[]): void {
  describe(title, () => {
    for (const c of cases) it(`decodes cleanly with djpeg -strict and jpeginfo -c for ${c.name}`, () => assertDecodes(c));
  });
}

describe('jpeg-decode', () => {
  it('finds djpeg and jpeginfo installed', () => {
    assert.match(runTool('djpeg', ['-version']).stderr, /libjpeg-turbo/);
    assert.match(runTool('jpeginfo', ['--version']).stdout.toString(), /jpeginfo/i);
  });
  suite('RGB, every size, quality, subsampling, table choice and restart setting', colourCases());
  suite('grey input as one component', greyCases());
  suite('RGB converted to grey, RGBA and comments', conversionCases(greyOf));
  suite('full-size 1125x2436 posters', posterCases());
});

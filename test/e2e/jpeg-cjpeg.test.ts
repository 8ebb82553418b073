/**
 * Byte identity with libjpeg-turbo's cjpeg: for the same pixels and
 * settings, our file from the first DQT marker to EOI must equal what
 * `cjpeg -baseline` writes (accurate integer DCT, its default). The whole
 * file is compared too: the JFIF APP0 segment matches as well. cjpeg cannot
 * write a comment, so for the comment cases our COM segment (checked here
 * and read back with rdjpgcom in jpeg-decode) is removed before comparing.
 * Needs cjpeg (Debian libjpeg-turbo-progs); fails, never skips, without it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { rgbToGrey } from '../../src/jpeg/color.js';
import { encodeJpeg } from '../../src/jpeg/encode.js';
import { colourCases, conversionCases, greyCases, posterCases, type JpegCase } from '../jpeg/cases.js';
import type { TestImage } from '../jpeg/images.js';
import {
  cjpegArgs, firstDifference, fromFirstDqt, runTool, segments, toNetpbm, withoutComment, withTempDir,
} from '../jpeg/tools.js';

const greyOf = (rgb: TestImage): TestImage => ({ ...rgb, channels: 1, data: rgbToGrey(rgb.data, 3) });

function cjpeg(c: JpegCase): Uint8Array {
  return withTempDir((dir) => {
    const input = join(dir, c.cjpegInput.channels === 1 ? 'input.pgm' : 'input.ppm');
    writeFileSync(input, toNetpbm(c.cjpegInput));
    return new Uint8Array(runTool('cjpeg', [...cjpegArgs(c.options, c.grey), input]).stdout);
  });
}

/** Our file, with the COM segment checked and removed when the case has a comment. */
function ours(c: JpegCase): Uint8Array {
  const jpeg = encodeJpeg(c.image, c.options);
  if (c.options.comment === undefined) return jpeg;
  const com = segments(jpeg).find((s) => s.marker === 0xfe);
  assert.ok(com, `${c.name}: no COM segment`);
  const text = Buffer.from(jpeg.subarray(com.offset + 4, com.offset + 2 + com.length)).toString('utf8');
  assert.equal(text, c.options.comment, `${c.name}: COM text`);
  return withoutComment(jpeg);
}

function assertSameAsCjpeg(c: JpegCase): void {
  const theirs = cjpeg(c);
  const mine = ours(c);
  const [a, b] = [fromFirstDqt(mine), fromFirstDqt(theirs)];
  const at = firstDifference(a, b);
  assert.equal(at, -1, `${c.name}: from DQT on, first difference at byte ${at} (ours ${a.length} bytes, cjpeg ${b.length})`);
  assert.equal(firstDifference(mine, theirs), -1, `${c.name}: headers before DQT differ`);
}

function suite(title: string, cases: JpegCase[]): void {
  describe(title, () => {
    for (const c of cases) it(`matches cjpeg byte for byte for ${c.name}`, () => assertSameAsCjpeg(c));
  });
}

describe('jpeg-cjpeg', () => {
  it('finds cjpeg installed', () => {
    assert.match(runTool('cjpeg', ['-version']).stderr, /libjpeg-turbo/);
  });
  suite('RGB, every size, quality, subsampling, table choice and restart setting', colourCases());
  suite('grey input as one component (cjpeg reading a PGM)', greyCases());
  suite('RGB converted to grey, RGBA and comments', conversionCases(greyOf));
  suite('full-size 1125x2436 posters', posterCases());
});

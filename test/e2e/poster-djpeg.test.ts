import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { renderPoster, writePoster } from '../../src/poster/library.js';
import { runProgram } from '../helpers/programs.js';

/** Header of a binary PNM (P5 grey / P6 colour) as djpeg -pnm writes it, and where pixels start. */
function readPnmHeader(pnm: Buffer): { magic: string; width: number; height: number; maxval: number; offset: number } {
  const match = /^(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pnm.subarray(0, 64).toString('latin1'));
  assert.ok(match, 'PNM header');
  return { magic: match[1], width: Number(match[2]), height: Number(match[3]), maxval: Number(match[4]), offset: match[0].length };
}

const SPEC = {
  title: 'Señor Ñandú',
  subtitle: 'Çà et là · 12 €',
  body: '“Año nuevo”, vida nueva.\nPorta la teva família.',
  accentColor: '#ff5533',
};

describe('posters decoded by libjpeg-turbo (djpeg)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'poster-djpeg-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('decodes a rendered poster as a 1125x2436 colour image without warnings', async () => {
    const jpeg = await renderPoster(SPEC);
    const result = await runProgram('djpeg', ['-pnm'], jpeg);
    assert.equal(result.code, 0, `djpeg exit code, stderr: ${result.stderr}`);
    assert.equal(result.stderr, '', 'no decoder warnings (a corrupt stream makes djpeg warn)');
    const header = readPnmHeader(result.stdout);
    assert.deepEqual([header.magic, header.width, header.height, header.maxval], ['P6', 1125, 2436, 255], 'PPM header');
    assert.equal(result.stdout.length - header.offset, 1125 * 2436 * 3, 'every pixel present');
  });

  it('decodes the file writePoster wrote, with the accent colour present in the pixels', async () => {
    const path = await writePoster(SPEC, dir);
    const result = await runProgram('djpeg', ['-pnm', path]);
    assert.equal(result.code, 0, `djpeg exit code, stderr: ${result.stderr}`);
    const { offset } = readPnmHeader(result.stdout);
    const pixels = result.stdout.subarray(offset);
    // The subtitle is drawn in #ff5533: some pixels must be close to it after decoding.
    let accent = 0;
    for (let i = 0; i < pixels.length; i += 3) {
      if (Math.abs(pixels[i] - 0xff) < 12 && Math.abs(pixels[i + 1] - 0x55) < 12 && Math.abs(pixels[i + 2] - 0x33) < 12) accent++;
    }
    assert.ok(accent > 500, `accent-coloured pixels: ${accent}`);
    assert.ok(readFileSync(path).length > 10_000, 'a real JPEG');
  });
});

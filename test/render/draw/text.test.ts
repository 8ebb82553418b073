import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Canvas } from '../../../src/render/draw/canvas.js';
import { drawLine, GlyphCache, rasterizeGlyph } from '../../../src/render/draw/text.js';
import { loadFont } from '../../../src/poster/fonts.js';
import { shapeLine } from '../../../src/render/layout.js';

const font = await loadFont('regular');
const sum = (data: Float32Array) => data.reduce((a, b) => a + b, 0);

describe('rasterizeGlyph', () => {
  it('covers the rectangle of "l" with its exact scaled area', () => {
    // DejaVu Sans 'l' is one rectangle: x 193..377, y 0..1556 font units (fontTools).
    const size = 100;
    const scale = size / 2048;
    const mask = rasterizeGlyph(font, font.glyphIndex(0x6c), size);
    const area = 184 * scale * 1556 * scale;
    assert.ok(Math.abs(sum(mask.data) - area) < 1e-3, `coverage ${sum(mask.data)} vs ${area}`);
    assert.equal(mask.y, Math.floor(-1556 * scale), 'mask top at the glyph top (y down)');
    assert.equal(mask.y + mask.height, 0, 'mask bottom on the baseline');
  });

  it('shifts the same coverage by a subpixel offset', () => {
    const glyph = font.glyphIndex(0x6f); // o
    const a = rasterizeGlyph(font, glyph, 40, 0);
    const b = rasterizeGlyph(font, glyph, 40, 0.5);
    assert.ok(Math.abs(sum(a.data) - sum(b.data)) < 1e-3, 'area kept');
    assert.notDeepEqual(a.data, b.data, 'pixels differ');
  });

  it('rasterises at any size with area growing as the square of the size', () => {
    const glyph = font.glyphIndex(0x20ac); // €
    const small = sum(rasterizeGlyph(font, glyph, 50).data);
    const big = sum(rasterizeGlyph(font, glyph, 400).data);
    assert.ok(Math.abs(big / small - 64) < 64 * 0.01, `ratio ${big / small} ≈ 64`);
  });

  it('draws .notdef for a character the font lacks', () => {
    const notdef = rasterizeGlyph(font, 0, 60);
    assert.ok(sum(notdef.data) > 50, 'the .notdef box has ink');
    const line = shapeLine(font, '\u{1D400}');
    assert.deepEqual(line.glyphs, [0], 'U+1D400 shapes to .notdef');
  });
});

describe('drawLine', () => {
  it('composites glyph coverage in the text colour and reuses cached masks', () => {
    const canvas = new Canvas(400, 100);
    canvas.clear({ r: 0, g: 0, b: 0 });
    const cache = new GlyphCache();
    const line = shapeLine(font, 'Año Ñandú');
    drawLine(canvas, line, 10, 70, { font, size: 48, color: { r: 255, g: 200, b: 0 } }, cache);
    let ink = 0;
    let blueTouched = false;
    for (let i = 0; i < canvas.data.length; i += 3) {
      ink += canvas.data[i];
      if (canvas.data[i + 2] !== 0) blueTouched = true;
    }
    assert.ok(ink > 255 * 500, `text left ink (${ink / 255} px)`);
    assert.equal(blueTouched, false, 'only the text colour was blended in');
    assert.equal(cache.mask(font, line.glyphs[1], 48, 0), cache.mask(font, line.glyphs[1], 48, 0), 'cache hit');
    // Nothing below the descender line or left of the pen start.
    for (let x = 0; x < 9; x++) assert.deepEqual(canvas.pixel(x, 60), [0, 0, 0], `column ${x} left of the pen`);
  });
});

describe('GlyphCache', () => {
  it('keeps masks within its byte budget, emptying itself rather than growing past it', () => {
    const one = rasterizeGlyph(font, font.glyphIndex(0x57), 120).data.byteLength; // W
    const cache = new GlyphCache(Math.floor(2.5 * one));
    const first = cache.mask(font, font.glyphIndex(0x57), 120, 0);
    cache.mask(font, font.glyphIndex(0x57), 120, 1);
    assert.equal(cache.bytes, first.data.byteLength + cache.mask(font, font.glyphIndex(0x57), 120, 1).data.byteLength, 'two masks held');
    assert.equal(cache.mask(font, font.glyphIndex(0x57), 120, 0), first, 'a hit returns the kept mask');
    cache.mask(font, font.glyphIndex(0x57), 120, 2);
    assert.ok(cache.bytes <= 2.5 * one, `${cache.bytes} bytes within the budget of ${2.5 * one}`);
    const again = cache.mask(font, font.glyphIndex(0x57), 120, 0);
    assert.notEqual(again, first, 'emptied: the first mask was rasterised again');
    assert.deepEqual(again.data, first.data, 'to the same coverage');
  });
});

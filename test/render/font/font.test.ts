import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listCmapSubtables, parseCmapSubtable } from '../../../src/render/font/cmap.js';
import { Font, FontFormatError, NOTDEF, type OutlineCommand } from '../../../src/render/font/font.js';
import { loadFont, fontPath } from '../../../src/poster/fonts.js';
import { readTableDirectory, requireTable } from '../../../src/render/font/sfnt.js';
import { readFile } from 'node:fs/promises';

// Expected numbers were read once from the shipped files (DejaVu Sans 2.37, Debian's
// fonts-dejavu-core) with fontTools 4.38 (Debian python3-fonttools): TTFont(...)['head'],
// ['hhea'], ['maxp'], getBestCmap(), getGlyphOrder(), ['hmtx'], ['glyf'][name] and ['kern'].
const regular = await loadFont('regular');
const bold = await loadFont('bold');

const cp = (ch: string) => ch.codePointAt(0)!;

/** The extremes of every point of an outline, control points included (what `glyf` stores as bbox). */
function outlineBox(outline: readonly OutlineCommand[]): [number, number, number, number] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const c of outline) {
    xs.push(c.x);
    ys.push(c.y);
    if (c.type === 'quad') {
      xs.push(c.cx);
      ys.push(c.cy);
    }
  }
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

const contours = (outline: readonly OutlineCommand[]) => outline.filter((c) => c.type === 'move').length;

describe('Font (DejaVu Sans tables)', () => {
  it('reads head, hhea and maxp of the regular face', () => {
    assert.equal(regular.unitsPerEm, 2048, 'unitsPerEm');
    assert.equal(regular.ascender, 1901, 'ascender');
    assert.equal(regular.descender, -483, 'descender');
    assert.equal(regular.lineGap, 0, 'lineGap');
    assert.equal(regular.numGlyphs, 6253, 'numGlyphs');
  });

  it('reads a different glyph count from the bold face', () => {
    assert.equal(bold.unitsPerEm, 2048, 'bold unitsPerEm');
    assert.equal(bold.numGlyphs, 6196, 'bold numGlyphs');
  });

  it('maps Latin-1, the euro sign and an astral code point to their glyph indices', () => {
    const cases: Array<[string, number]> = [['A', 36], ['Ñ', 147], ['ñ', 179], ['Ç', 137], ['€', 2948], ['·', 121], ['“', 2815], ['😀', 5857]];
    for (const [ch, glyph] of cases) assert.equal(regular.glyphIndex(cp(ch)), glyph, `glyph index of ${ch}`);
  });

  it('gives .notdef (0) for a code point the font lacks', () => {
    assert.equal(regular.glyphIndex(0x1d400), NOTDEF, 'U+1D400 MATHEMATICAL BOLD CAPITAL A is not in DejaVu Sans');
    assert.equal(regular.glyphIndex(0x10ffff), NOTDEF, 'U+10FFFF');
  });

  it('reads advance widths from hmtx', () => {
    const cases: Array<[string, number]> = [['A', 1401], ['Ñ', 1532], ['€', 1303], [' ', 651], ['W', 2025], ['a', 1255]];
    for (const [ch, advance] of cases) assert.equal(regular.advanceWidth(regular.glyphIndex(cp(ch))), advance, `advance of ${ch}`);
    assert.equal(bold.advanceWidth(bold.glyphIndex(cp('A'))), 1585, 'bold advance of A');
    assert.equal(regular.advanceWidth(NOTDEF), 1229, '.notdef advance');
    assert.equal(regular.leftSideBearing(regular.glyphIndex(cp('l'))), 193, 'lsb of l');
  });

  it('reads format 0 kerning pairs from kern', () => {
    const g = (ch: string, font = regular) => font.glyphIndex(cp(ch));
    assert.equal(regular.kerning(g('A'), g('V')), -131, 'A V');
    assert.equal(regular.kerning(g('T'), g('o')), -348, 'T o');
    assert.equal(bold.kerning(g('A', bold), g('V', bold)), -139, 'bold A V');
    assert.equal(regular.kerning(g('o'), g('o')), 0, 'o o has no pair');
  });
});

describe('Font outlines (glyf and loca)', () => {
  it('reads A as a simple glyph of 2 contours within its stored bounding box', () => {
    const glyph = regular.glyphIndex(cp('A'));
    assert.deepEqual(regular.glyphHeader(glyph), { numberOfContours: 2, components: [] }, 'A header');
    const outline = regular.outline(glyph);
    assert.equal(contours(outline), 2, 'A contours');
    assert.deepEqual(outlineBox(outline), [16, 0, 1384, 1493], 'A bbox');
    assert.ok(outline.every((c) => c.type !== 'quad'), 'A is all straight lines');
  });

  it('reads € as one contour with quadratic curves', () => {
    const outline = regular.outline(regular.glyphIndex(cp('€')));
    assert.equal(contours(outline), 1, '€ contours');
    assert.ok(outline.some((c) => c.type === 'quad'), '€ has curves');
    assert.deepEqual(outlineBox(outline), [0, -29, 1167, 1520], '€ bbox');
  });

  it('resolves Ñ, a composite of N and a tilde, into both contours at the component offset', () => {
    const glyph = regular.glyphIndex(cp('Ñ'));
    assert.deepEqual(regular.glyphHeader(glyph), { numberOfContours: -1, components: [49, 5924] }, 'Ñ is N (49) + Tilde (5924)');
    const outline = regular.outline(glyph);
    assert.equal(contours(outline), 2, 'Ñ contours');
    // The tilde is offset by (1278, 373); the stored composite bbox is (201, 0, 1331, 1886).
    assert.deepEqual(outlineBox(outline), [201, 0, 1331, 1886], 'Ñ bbox');
    const n = regular.outline(49);
    assert.deepEqual(outline.slice(0, n.length), n, 'the first component is N unchanged');
  });

  it('resolves a nested composite (ŉ uses ʼ, itself a composite)', () => {
    const glyph = regular.glyphIndex(0x149);
    assert.equal(regular.glyphHeader(glyph).numberOfContours, -1, 'ŉ is composite');
    const apostrophe = regular.glyphHeader(glyph).components[1];
    assert.equal(regular.glyphHeader(apostrophe).numberOfContours, -1, 'ʼ (uni02BC) is composite too');
    const outline = regular.outline(glyph);
    assert.equal(contours(outline), 2, 'ŉ has the contour of n and of the apostrophe');
    assert.deepEqual(outlineBox(outline), [205, 0, 1465, 1493], 'ŉ bbox');
  });

  it('starts every contour with a move and closes it on its start point', () => {
    const outline = regular.outline(regular.glyphIndex(cp('ñ')));
    let start: OutlineCommand | undefined;
    let previous: OutlineCommand | undefined;
    for (const c of [...outline, { type: 'move', x: NaN, y: NaN } as const]) {
      if (c.type === 'move') {
        if (start && previous) assert.deepEqual([previous.x, previous.y], [start.x, start.y], 'contour closes on its start');
        start = c;
      }
      previous = c;
    }
    assert.equal(outline[0].type, 'move', 'first command is a move');
  });

  it('draws .notdef as its own 2-contour box and a space as nothing', () => {
    assert.equal(contours(regular.outline(NOTDEF)), 2, '.notdef contours');
    assert.equal(regular.outline(regular.glyphIndex(0x20)).length, 0, 'space outline is empty');
  });

  it('returns the cached outline object on the second request', () => {
    const glyph = regular.glyphIndex(cp('g'));
    assert.equal(regular.outline(glyph), regular.outline(glyph), 'same array instance');
  });

  it('throws TypeError for a glyph index outside the font', () => {
    assert.throws(() => regular.outline(6253), TypeError, 'index numGlyphs');
    assert.throws(() => regular.outline(-1), TypeError, 'index -1');
  });
});

describe('cmap subtables', () => {
  it('agree between format 4 and format 12 on the BMP, and only format 12 maps astral planes', async () => {
    const bytes = await readFile(fontPath('regular'));
    const cmap = requireTable(bytes, readTableDirectory(bytes), 'cmap');
    const records = listCmapSubtables(cmap);
    assert.deepEqual(
      records.map((r) => [r.platformId, r.encodingId, r.format]),
      [[0, 3, 4], [0, 4, 12], [1, 0, 6], [3, 1, 4], [3, 10, 12]],
      'subtables as fontTools lists them',
    );
    const format4 = parseCmapSubtable(cmap, records.find((r) => r.format === 4 && r.platformId === 3)!.offset);
    const format12 = parseCmapSubtable(cmap, records.find((r) => r.format === 12 && r.platformId === 3)!.offset);
    for (let c = 0x20; c <= 0xff; c++) assert.equal(format4(c), format12(c), `U+${c.toString(16)} in both formats`);
    assert.equal(format4(0x20ac), 2948, '€ in format 4');
    assert.equal(format12(0x1f600), 5857, '😀 in format 12');
    assert.equal(format4(0x1f600), 0, '😀 is beyond format 4');
  });
});

describe('Font input checks', () => {
  it('throws FontFormatError for bytes that are not a TrueType font', () => {
    assert.throws(() => new Font(new TextEncoder().encode('not a font at all')), FontFormatError, 'text bytes');
    assert.throws(() => new Font(new Uint8Array(4)), FontFormatError, 'four zero bytes');
  });

  it('throws FontFormatError when a required table is missing', async () => {
    const bytes = new Uint8Array(await readFile(fontPath('regular')));
    const view = new DataView(bytes.buffer);
    // Rename 'glyf' in the table directory so it cannot be found.
    for (let i = 0; i < view.getUint16(4); i++) {
      const at = 12 + i * 16;
      if (String.fromCharCode(...bytes.subarray(at, at + 4)) === 'glyf') bytes.set([0x78, 0x78, 0x78, 0x78], at);
    }
    assert.throws(() => new Font(bytes), /required table 'glyf' is missing/, 'missing glyf');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadFont } from '../../src/poster/fonts.js';
import { codePoints, fitShaped, fitText, shapeLine, shapeText, truncateLines, wrapShaped, wrapText, type LaidOutLine } from '../../src/render/layout.js';

const font = await loadFont('regular');
const bold = await loadFont('bold');

/** The text of a laid-out line, read back through the font's cmap (Latin test strings only). */
function textOf(line: LaidOutLine): string {
  const reverse = new Map<number, string>();
  for (let c = 0x20; c <= 0x24ff; c++) if (!reverse.has(font.glyphIndex(c))) reverse.set(font.glyphIndex(c), String.fromCodePoint(c));
  return line.glyphs.map((g) => reverse.get(g) ?? '?').join('');
}

const width = (text: string) => shapeLine(font, text).width;

describe('shapeLine', () => {
  it('adds advances and kern pairs: "AV" is narrower than A + V', () => {
    const a = font.advanceWidth(font.glyphIndex(0x41));
    const v = font.advanceWidth(font.glyphIndex(0x56));
    assert.equal(width('AV'), a + v - 131, 'AV width with the -131 pair');
    assert.deepEqual(shapeLine(font, 'AV').positions, [0, a - 131], 'V pulled left');
  });

  it('composes decomposed accents (NFC) so n + U+0303 is the font’s ñ', () => {
    assert.deepEqual(codePoints('n\u0303'), [0xf1], 'NFC');
    assert.deepEqual(shapeLine(font, 'n\u0303').glyphs, [font.glyphIndex(0xf1)], 'one glyph');
  });

  it('keeps astral characters as one code point (UTF-16 surrogate pairs)', () => {
    assert.deepEqual(shapeLine(font, '😀').glyphs, [5857], 'one glyph for U+1F600');
  });
});

describe('wrapText', () => {
  it('breaks at spaces so every line fits the width, dropping the spaces at breaks', () => {
    const text = 'Señor Ñandú baila con la niña en el año nuevo';
    const max = width('Señor Ñandú baila');
    const { lines, brokeWords } = wrapText(font, text, max);
    assert.deepEqual(lines.map(textOf), ['Señor Ñandú baila', 'con la niña en el', 'año nuevo'], 'greedy lines');
    assert.ok(lines.every((l) => l.width <= max), 'each line within the width');
    assert.equal(brokeWords, false, 'no word split');
  });

  it('starts a new line at each \\n and keeps empty lines', () => {
    const { lines } = wrapText(font, 'Çà et là\n\n€ 12', 1e9);
    assert.deepEqual(lines.map(textOf), ['Çà et là', '', '€ 12'], 'paragraphs');
  });

  it('splits a word wider than the line between letters and says so', () => {
    const { lines, brokeWords } = wrapText(font, 'Anticonstitucionalmente', width('Anticonsti'));
    assert.equal(brokeWords, true, 'brokeWords');
    assert.ok(lines.length >= 2, `split into ${lines.length} lines`);
    assert.equal(lines.map(textOf).join(''), 'Anticonstitucionalmente', 'no letter lost');
  });

  it('balances lines when asked: same line count, no lone last word', () => {
    const text = 'Música en directo, tapas y cava hasta el amanecer.';
    const max = width('Música en directo, tapas y cava hasta el');
    const greedy = wrapText(font, text, max);
    const balanced = wrapText(font, text, max, { balance: true });
    assert.deepEqual(greedy.lines.map(textOf), ['Música en directo, tapas y cava hasta el', 'amanecer.'], 'greedy');
    assert.equal(balanced.lines.length, 2, 'still two lines');
    const [a, b] = balanced.lines.map((l) => l.width);
    assert.ok(Math.abs(a - b) < Math.abs(greedy.lines[0].width - greedy.lines[1].width) / 2, `balanced widths ${a} / ${b}`);
    assert.equal(balanced.lines.map(textOf).join(' '), text, 'same words');
  });

  it('does not count trailing or repeated spaces in a line', () => {
    const { lines } = wrapText(font, 'hola   mundo   ', 1e9);
    assert.equal(lines.length, 1, 'one line');
    assert.equal(lines[0].width, width('hola   mundo'), 'trailing spaces dropped, inner kept');
  });
});

describe('fitText', () => {
  it('picks the largest size at which the text fits in the allowed lines', () => {
    const text = 'Fiesta del Año Nuevo';
    const fitted = fitText(bold, text, { maxWidth: 900, maxLines: 2, minSize: 40, maxSize: 400 });
    assert.equal(fitted.fits, true, 'fits');
    assert.ok(fitted.lines.length <= 2, `${fitted.lines.length} lines`);
    const wrapAt = (size: number) => wrapText(bold, text, (900 * 2048) / size);
    assert.ok(wrapAt(fitted.size).lines.length <= 2, 'fits at the chosen size');
    const next = wrapAt(fitted.size + 1);
    assert.ok(next.lines.length > 2 || next.brokeWords, `size ${fitted.size + 1} would not fit`);
  });

  it('grows a short title to the maximum size', () => {
    assert.equal(fitText(bold, 'Sí', { maxWidth: 900, maxLines: 4, minSize: 40, maxSize: 200 }).size, 200, 'max size');
  });

  it('returns the minimum size, not fitting, when even that needs too many lines', () => {
    const fitted = fitText(font, 'una frase bastante larga que no cabe', { maxWidth: 100, maxLines: 1, minSize: 30, maxSize: 60 });
    assert.deepEqual([fitted.size, fitted.fits], [30, false], 'min size, fits false');
  });

  it('shrinks rather than split a long word', () => {
    const fitted = fitText(bold, 'Supercalifragilisticoespialidoso', { maxWidth: 900, maxLines: 4, minSize: 20, maxSize: 200 });
    assert.equal(fitted.lines.length, 1, 'one line');
    assert.equal(fitted.brokeWords, false, 'word kept whole');
  });
});

describe('shapeText', () => {
  const text = 'Señor\u2003Ñandú:\tfiesta del\u00a0Año “Nuevo”\n\nÇà et là — 12 €  fin ';

  it('shapes once for any number of widths: the same lines as wrapText at each', () => {
    const shaped = shapeText(font, text);
    assert.equal(shaped.paragraphs.length, 3, 'one run per paragraph');
    for (const max of [1e9, 20000, 9000, 4000, 1500]) {
      for (const balance of [false, true]) {
        assert.deepEqual(wrapShaped(shaped, max, { balance }), wrapText(font, text, max, { balance }), `width ${max}, balance ${balance}`);
      }
    }
  });

  it('breaks at tabs and U+2000..U+200A spaces, never at U+00A0', () => {
    const { lines, brokeWords } = wrapText(font, 'a\u2003b\tc\u00a0d', width('c\u00a0d'));
    assert.deepEqual(lines.map(textOf), ['a', 'b', textOf(shapeLine(font, 'c\u00a0d'))], 'lines');
    assert.equal(brokeWords, false, 'no word split');
  });

  it('fits the same as fitText', () => {
    const options = { maxWidth: 900, maxLines: 4, minSize: 40, maxSize: 200, balance: true };
    assert.deepEqual(fitShaped(shapeText(bold, text), options), fitText(bold, text, options));
  });
});

describe('truncateLines', () => {
  it('keeps the first lines and ends the last kept one with an ellipsis within the width', () => {
    const max = width('uno dos tres');
    const { lines } = wrapText(font, 'uno dos tres cuatro cinco seis siete ocho', max);
    const cut = truncateLines(font, lines, 2, max);
    assert.equal(cut.length, 2, 'two lines kept');
    assert.equal(cut[1].glyphs.at(-1), font.glyphIndex(0x2026), 'ends with …');
    assert.ok(cut[1].width <= max, `last line ${cut[1].width} within ${max}`);
  });

  it('leaves lines alone when they are within the limit', () => {
    const { lines } = wrapText(font, 'uno dos', 1e9);
    assert.deepEqual(truncateLines(font, lines, 3, 1e9), lines, 'unchanged');
  });
});

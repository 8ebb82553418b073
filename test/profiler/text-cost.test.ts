import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detachedCopy, fitPrefix, textCost } from '../../src/profiler/text-cost.js';

const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text));

describe('textCost', () => {
  const cases: [string, string, number][] = [
    ['ASCII', 'GET /index.html', jsonBytes('GET /index.html')],
    ['quotes and backslashes, escaped', 'a"b\\c', jsonBytes('a"b\\c')],
    ['short escapes (\\n, \\t)', 'a\nb\tc\r\f\b', jsonBytes('a\nb\tc\r\f\b')],
    ['six-byte escapes (\\u0001)', '\u0001\u001f\u0000', jsonBytes('\u0001\u001f\u0000')],
    ['Latin-1, two bytes of UTF-8 (one in memory)', 'ééé', jsonBytes('ééé')],
    ['U+0100, two bytes of UTF-8 and two in memory', 'ĀĀĀ', 8],
    ['€, three bytes of UTF-8', '€€€', jsonBytes('€€€')],
    ['an astral character, four bytes for its surrogate pair', '😀', jsonBytes('😀')],
    ['a lone surrogate, escaped', 'a\ud800b\udc00', jsonBytes('a\ud800b\udc00')],
    ['ASCII in a wide string costs two bytes a character in memory', `${'a'.repeat(100)}…`, 202],
  ];
  for (const [name, text, cost] of cases) {
    it(`weighs ${name}`, () => assert.equal(textCost(text), cost, name));
  }

  it('is never less than JSON\'s bytes or V8\'s', () => {
    for (const text of ['', 'a', 'é', 'Ā', '€', '😀', '\u0001', '"', '\ud800', `x${'…'.repeat(3)}`]) {
      const memory = [...text].some((c) => c.charCodeAt(0) > 0xff) ? 2 * text.length : text.length;
      assert.ok(textCost(text) >= Math.max(jsonBytes(text), memory), JSON.stringify(text));
    }
  });
});

describe('fitPrefix', () => {
  it('stops before the character that would pass the JSON room', () => {
    assert.deepEqual(fitPrefix('ab€c', 4), { end: 2, jsonBytes: 2, wide: false });
    assert.deepEqual(fitPrefix('ab€c', 5), { end: 3, jsonBytes: 5, wide: true });
  });

  it('stops at the unit room', () => assert.deepEqual(fitPrefix('abcdef', 100, 3), { end: 3, jsonBytes: 3, wide: false }));

  it('keeps a surrogate pair whole or not at all', () => {
    assert.equal(fitPrefix('a😀', 4).end, 1);
    assert.equal(fitPrefix('a😀', 5).end, 3);
    assert.equal(fitPrefix('a😀', 100, 2).end, 1);
  });
});

describe('detachedCopy', () => {
  it('copies every character, lone surrogates included', () => {
    const text = `a\ud800"\u0001é€😀${'x'.repeat(100)}`;
    assert.equal(detachedCopy(text.slice(1)), text.slice(1));
  });
});

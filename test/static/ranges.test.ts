import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideRange } from '../../src/static/ranges.js';

const SIZE = 1000;

describe('decideRange', () => {
  const cases: [string, string | undefined, number, ReturnType<typeof decideRange>][] = [
    ['no Range header', undefined, SIZE, { kind: 'whole' }],
    ['first-last', 'bytes=0-499', SIZE, { kind: 'partial', start: 0, end: 499 }],
    ['one byte', 'bytes=5-5', SIZE, { kind: 'partial', start: 5, end: 5 }],
    ['first- (to the end)', 'bytes=900-', SIZE, { kind: 'partial', start: 900, end: 999 }],
    ['a last byte past the end, clamped', 'bytes=990-5000', SIZE, { kind: 'partial', start: 990, end: 999 }],
    ['a suffix', 'bytes=-100', SIZE, { kind: 'partial', start: 900, end: 999 }],
    ['a suffix longer than the file', 'bytes=-5000', SIZE, { kind: 'partial', start: 0, end: 999 }],
    ['the unit in upper case and spaces around the spec', 'Bytes= 1-2 ', SIZE, { kind: 'partial', start: 1, end: 2 }],
    ['empty list elements around one range', 'bytes=, 1-2 ,', SIZE, { kind: 'partial', start: 1, end: 2 }],
    ['a first byte at the end', 'bytes=1000-', SIZE, { kind: 'unsatisfiable' }],
    ['a first byte past the end', 'bytes=2000-3000', SIZE, { kind: 'unsatisfiable' }],
    ['a huge first byte', 'bytes=99999999999999999999-', SIZE, { kind: 'unsatisfiable' }],
    ['a zero-length suffix', 'bytes=-0', SIZE, { kind: 'unsatisfiable' }],
    ['any first-byte range of an empty file', 'bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['a suffix of an empty file (nothing to cut)', 'bytes=-10', 0, { kind: 'whole' }],
    ['two ranges', 'bytes=0-1,5-6', SIZE, { kind: 'whole' }],
    ['two overlapping ranges', 'bytes=0-10, 5-20', SIZE, { kind: 'whole' }],
    ['last before first', 'bytes=5-1', SIZE, { kind: 'whole' }],
    ['another unit', 'items=0-1', SIZE, { kind: 'whole' }],
    ['no equals sign', 'bytes 0-1', SIZE, { kind: 'whole' }],
    ['no range-spec', 'bytes=', SIZE, { kind: 'whole' }],
    ['a lone dash', 'bytes=-', SIZE, { kind: 'whole' }],
    ['letters', 'bytes=a-b', SIZE, { kind: 'whole' }],
    ['a negative first byte', 'bytes=--5', SIZE, { kind: 'whole' }],
    ['a sign', 'bytes=+1-2', SIZE, { kind: 'whole' }],
    ['a fraction', 'bytes=1.5-2', SIZE, { kind: 'whole' }],
    ['a Content-Range value instead', 'bytes 0-1/1000', SIZE, { kind: 'whole' }],
  ];
  for (const [name, value, size, expected] of cases) {
    it(`gives ${expected.kind} for ${name}`, () => assert.deepEqual(decideRange(value, size), expected, `${name}: ${value}`));
  }
});

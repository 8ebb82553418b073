import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rememberLast } from '../../src/util/remember-last.js';

describe('rememberLast', () => {
  it('computes once for a run of the same key, again for each new key, and keeps only the last', () => {
    const seen: string[] = [];
    const upper = rememberLast((key: string) => {
      seen.push(key);
      return { upper: key.toUpperCase() };
    });
    const first = upper('a');
    assert.equal(upper('a'), first, 'a repeat returns the very same answer');
    assert.deepEqual(upper('b'), { upper: 'B' });
    assert.deepEqual(upper('a'), { upper: 'A' });
    assert.notEqual(upper('a'), first, 'only the last key is kept');
    assert.deepEqual(seen, ['a', 'b', 'a']);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freeNow } from '../../src/util/free-now.js';

describe('freeNow', () => {
  it('detaches an array that spans its whole buffer, and every other view of that buffer', () => {
    const bytes = new Uint8Array(1 << 20).fill(7);
    const words = new Uint32Array(bytes.buffer);
    freeNow(bytes);
    assert.equal(bytes.length, 0, 'the array');
    assert.equal(words.length, 0, 'another view of the same buffer');
    assert.equal(bytes.buffer.byteLength, 0, 'the buffer');
  });

  it("leaves a view of part of a buffer alone: the rest may be another array's", () => {
    const whole = new Uint8Array(64).fill(9);
    const part = whole.subarray(8, 16);
    freeNow(part);
    assert.equal(part.length, 8, 'the part');
    assert.equal(whole.length, 64, 'the rest');
    assert.equal(whole[63], 9, 'and its bytes');
  });
});

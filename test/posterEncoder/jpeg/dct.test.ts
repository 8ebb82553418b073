import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forwardDct, uniformBlockDc, uniformSample } from '../../../src/posterEncoder/jpeg/dct.js';
import { ZIGZAG } from '../../../src/posterEncoder/jpeg/zigzag.js';
import { random } from './images.js';

/** T.81 A.3.3 FDCT in floating point: S(v,u) of the level-shifted samples. */
function referenceDct(block: Uint8Array): Float64Array {
  const out = new Float64Array(64);
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0;
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) {
          sum += (block[y * 8 + x] - 128) * Math.cos(((2 * x + 1) * u * Math.PI) / 16) * Math.cos(((2 * y + 1) * v * Math.PI) / 16);
        }
      }
      out[v * 8 + u] = 0.25 * (u === 0 ? Math.SQRT1_2 : 1) * (v === 0 ? Math.SQRT1_2 : 1) * sum;
    }
  }
  return out;
}

/** The DCT and the uniform-block test read samples through a DataView. */
const viewOf = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function transform(block: Uint8Array): Int32Array {
  const out = new Int32Array(64);
  forwardDct(viewOf(block), 0, 8, out);
  return out;
}

describe('dct', () => {
  it('equals 8 times the floating-point DCT within the fixed-point rounding', () => {
    const rnd = random(7);
    let worst = 0;
    let total = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const kind = trial % 3;
      const block = Uint8Array.from({ length: 64 }, (_, i) =>
        kind === 0 ? rnd() * 256 : kind === 1 ? (rnd() < 0.5 ? 0 : 255) : 128 + 100 * Math.sin(i * rnd()));
      const ours = transform(block);
      const exact = referenceDct(block);
      for (let k = 0; k < 64; k++) {
        const error = Math.abs(ours[k] - 8 * exact[ZIGZAG[k]]);
        worst = Math.max(worst, error);
        total += error;
      }
    }
    // 13-bit constants and two roundings: measured worst 1.34, mean 0.27 (units of S / 8).
    assert.ok(worst <= 1.5, `worst error ${worst}`);
    assert.ok(total / (3000 * 64) <= 0.35, `mean error ${total / (3000 * 64)}`);
  });

  it('writes its output in zig-zag order', () => {
    // A horizontal cosine of frequency 1 puts its energy in S(0,1), zig-zag position 1;
    // the vertical one in S(1,0), position 2.
    const horizontal = Uint8Array.from({ length: 64 }, (_, i) => 128 + 100 * Math.cos(((2 * (i % 8) + 1) * Math.PI) / 16));
    const vertical = Uint8Array.from({ length: 64 }, (_, i) => 128 + 100 * Math.cos(((2 * (i >> 3) + 1) * Math.PI) / 16));
    assert.ok(Math.abs(transform(horizontal)[1]) > 1500 && Math.abs(transform(horizontal)[2]) <= 2);
    assert.ok(Math.abs(transform(vertical)[2]) > 1500 && Math.abs(transform(vertical)[1]) <= 2);
  });

  it('reads the block at an offset with a row stride', () => {
    const plane = new Uint8Array(24 * 16).fill(7);
    const block = Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 255);
    for (let row = 0; row < 8; row++) plane.set(block.subarray(row * 8, row * 8 + 8), (row + 8) * 24 + 8);
    const out = new Int32Array(64);
    forwardDct(viewOf(plane), 8 * 24 + 8, 24, out);
    assert.deepEqual(out, transform(block));
  });

  it('pins the exact integer output of a ramp block', () => {
    // Values that cjpeg agrees with (the e2e tier compares whole files).
    const ramp = Uint8Array.from({ length: 64 }, (_, i) => 16 * (i & 7) + 8 * (i >> 3));
    assert.deepEqual([...transform(ramp)], [
      -2816, -2332, -1166, 0, 0, 0, -244, 0, 0, -122, 0, 0, 0, 0, 0, -72,
      0, 0, 0, 0, -36, 0, 0, 0, 0, 0, 0, 0, -18, 0, 0, 0,
      0, 0, 0, -9, ...new Array(28).fill(0),
    ]);
  });

  it('gives a uniform block only the DC 64 * (s - 128), as uniformBlockDc says', () => {
    for (const s of [0, 1, 127, 128, 200, 255]) {
      const out = transform(new Uint8Array(64).fill(s));
      assert.equal(out[0], uniformBlockDc(s), `sample ${s}`);
      assert.ok(out.subarray(1).every((v) => v === 0), `sample ${s}`);
    }
  });

  it('finds uniform blocks and rejects a block with any differing sample', () => {
    const plane = new Uint8Array(16 * 8).fill(90);
    assert.equal(uniformSample(viewOf(plane), 0, 16), 90);
    for (let i = 0; i < 64; i++) {
      const copy = plane.slice();
      copy[(i >> 3) * 16 + (i & 7)] = 91;
      assert.equal(uniformSample(viewOf(copy), 0, 16), -1, `sample ${i} differs`);
    }
    const outside = plane.slice();
    outside[8] = 0; // next block on the same row
    assert.equal(uniformSample(viewOf(outside), 0, 16), 90);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DctBlock, forwardDct, uniformBlockDc, uniformSample } from '../../src/jpeg/dct.js';
import { ZIGZAG } from '../../src/jpeg/zigzag.js';
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
const wordsOf = (bytes: Uint8Array): Int32Array => new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);

/** No dead zone: every non-zero output is marked. */
const NO_DEAD_ZONE = new Int32Array(64);

function transform(samples: Uint8Array, deadZone = NO_DEAD_ZONE): DctBlock {
  const block = new DctBlock();
  forwardDct(viewOf(samples), 0, 8, deadZone, block);
  return block;
}

/** The coefficients of a block, natural order. */
const coefficientsOf = (samples: Uint8Array): Int16Array => transform(samples).coefficients;

/** The marks of a block as the set of natural indices marked. */
function marked(block: DctBlock): number[] {
  const found: number[] = [];
  for (let n = 0; n < 64; n++) if (((n < 32 ? block.marksLow : block.marksHigh) >>> (n & 31)) & 1) found.push(n);
  return found;
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
      const ours = coefficientsOf(block);
      const exact = referenceDct(block);
      for (let n = 0; n < 64; n++) {
        const error = Math.abs(ours[n] - 8 * exact[n]);
        worst = Math.max(worst, error);
        total += error;
      }
    }
    // 13-bit constants and two roundings: measured worst 1.34, mean 0.27 (units of S / 8).
    assert.ok(worst <= 1.5, `worst error ${worst}`);
    assert.ok(total / (3000 * 64) <= 0.35, `mean error ${total / (3000 * 64)}`);
  });

  it('holds the largest outputs of 8-bit samples in its 16-bit coefficients', () => {
    // For each output, the block of 0s and 255s that the basis function's sign picks maximises
    // it, and the opposite block minimises it: a result past 16 bits would wrap and miss.
    for (let n = 0; n < 64; n++) {
      const [v, u] = [n >> 3, n & 7];
      const basis = (i: number): number => Math.cos(((2 * (i & 7) + 1) * u * Math.PI) / 16) * Math.cos(((2 * (i >> 3) + 1) * v * Math.PI) / 16);
      for (const sign of [1, -1]) {
        const block = Uint8Array.from({ length: 64 }, (_, i) => (sign * basis(i) > 0 ? 255 : 0));
        const expected = 8 * referenceDct(block)[n]!;
        assert.ok(Math.abs(coefficientsOf(block)[n]! - expected) <= 1.5, `output ${n}, sign ${sign}: ${coefficientsOf(block)[n]} against ${expected}`);
      }
    }
    assert.equal(coefficientsOf(new Uint8Array(64))[0], -8192);
    assert.equal(coefficientsOf(new Uint8Array(64).fill(255))[0], 8128);
  });

  it('writes its output in natural order', () => {
    // A horizontal cosine of frequency 1 puts its energy in S(0,1), natural index 1;
    // the vertical one in S(1,0), index 8.
    const horizontal = Uint8Array.from({ length: 64 }, (_, i) => 128 + 100 * Math.cos(((2 * (i % 8) + 1) * Math.PI) / 16));
    const vertical = Uint8Array.from({ length: 64 }, (_, i) => 128 + 100 * Math.cos(((2 * (i >> 3) + 1) * Math.PI) / 16));
    assert.ok(Math.abs(coefficientsOf(horizontal)[1]) > 1500 && Math.abs(coefficientsOf(horizontal)[8]) <= 2);
    assert.ok(Math.abs(coefficientsOf(vertical)[8]) > 1500 && Math.abs(coefficientsOf(vertical)[1]) <= 2);
  });

  it('marks exactly the outputs whose magnitude exceeds their dead zone', () => {
    const rnd = random(11);
    for (let trial = 0; trial < 200; trial++) {
      const samples = Uint8Array.from({ length: 64 }, () => (trial % 2 ? rnd() * 256 : 120 + rnd() * 16));
      const deadZone = Int32Array.from({ length: 64 }, () => Math.floor(rnd() * 300));
      const block = transform(samples, deadZone);
      const expected = [...block.coefficients.keys()].filter((n) => Math.abs(block.coefficients[n]) > deadZone[n]);
      assert.deepEqual(marked(block), expected, `trial ${trial}`);
    }
  });

  it('marks at the boundary: |output| = dead zone unmarked, one less marked', () => {
    const ramp = Uint8Array.from({ length: 64 }, (_, i) => 16 * (i & 7) + 8 * (i >> 3));
    const exact = Int32Array.from(coefficientsOf(ramp), Math.abs);
    assert.deepEqual(marked(transform(ramp, exact)), []);
    const below = exact.map((v) => Math.max(0, v - 1));
    assert.deepEqual(marked(transform(ramp, below)), [...exact.keys()].filter((n) => exact[n] > 0));
  });

  it('reads the block at an offset with a row stride', () => {
    const plane = new Uint8Array(24 * 16).fill(7);
    const block = Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 255);
    for (let row = 0; row < 8; row++) plane.set(block.subarray(row * 8, row * 8 + 8), (row + 8) * 24 + 8);
    const out = new DctBlock();
    forwardDct(viewOf(plane), 8 * 24 + 8, 24, NO_DEAD_ZONE, out);
    assert.deepEqual(out, transform(block));
  });

  it('pins the exact integer output of a ramp block', () => {
    // Values that cjpeg agrees with (the e2e tier compares whole files).
    const ramp = Uint8Array.from({ length: 64 }, (_, i) => 16 * (i & 7) + 8 * (i >> 3));
    const coefficients = coefficientsOf(ramp);
    assert.deepEqual([...ZIGZAG].map((n) => coefficients[n]), [
      -2816, -2332, -1166, 0, 0, 0, -244, 0, 0, -122, 0, 0, 0, 0, 0, -72,
      0, 0, 0, 0, -36, 0, 0, 0, 0, 0, 0, 0, -18, 0, 0, 0,
      0, 0, 0, -9, ...new Array(28).fill(0),
    ]);
  });

  it('gives a uniform block only the DC 64 * (s - 128), as uniformBlockDc says', () => {
    for (const s of [0, 1, 127, 128, 200, 255]) {
      const out = coefficientsOf(new Uint8Array(64).fill(s));
      assert.equal(out[0], uniformBlockDc(s), `sample ${s}`);
      assert.ok(out.subarray(1).every((v) => v === 0), `sample ${s}`);
    }
  });

  it('finds uniform blocks and rejects a block with any differing sample', () => {
    const plane = new Uint8Array(16 * 8).fill(90);
    assert.equal(uniformSample(wordsOf(plane), 0, 4), 90);
    for (let i = 0; i < 64; i++) {
      const copy = plane.slice();
      copy[(i >> 3) * 16 + (i & 7)] = 91;
      assert.equal(uniformSample(wordsOf(copy), 0, 4), -1, `sample ${i} differs`);
    }
    const outside = plane.slice();
    outside[8] = 0; // next block on the same row
    assert.equal(uniformSample(wordsOf(outside), 0, 4), 90);
  });
});

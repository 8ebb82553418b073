import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  convertRowH1V1 as convertH1V1, convertRowH2V1 as convertH2V1, convertRowsH2V2 as convertH2V2, rgbToCb, rgbToCr,
  rgbToGrey, rgbToLuma, rowSourceOf, YCC_WEIGHTS, type RowTarget,
} from '../../src/jpeg/color.js';
import { planFrame } from '../../src/jpeg/frame.js';
import { McuRowConverter } from '../../src/jpeg/mcu-rows.js';

/** The conversion in its textbook form: three weights per output, then >> 16. */
function direct(weights: readonly number[], offset: number, r: number, g: number, b: number): number {
  return (weights[0] * r + weights[1] * g + weights[2] * b + offset) >> 16;
}

function target(yLength: number, cLength: number, lumaRows = 1): RowTarget {
  const [yPlane, cbPlane, crPlane] = [new Uint8Array(yLength * lumaRows), new Uint8Array(cLength), new Uint8Array(cLength)];
  const viewOf = (plane: Uint8Array): DataView => new DataView(plane.buffer);
  return { yPlane, yStart: 0, yLength, cbPlane, crPlane, cStart: 0, cLength, yView: viewOf(yPlane), cbView: viewOf(cbPlane), crView: viewOf(crPlane) };
}

// The row conversions on plain bytes (the encoder makes the source's DataView once per image).
const convertRowH1V1 = (src: Uint8Array, row: number, channels: number, width: number, t: RowTarget): void =>
  convertH1V1(rowSourceOf(src), row, channels, width, t);
const convertRowH2V1 = (src: Uint8Array, row: number, channels: number, width: number, t: RowTarget): void =>
  convertH2V1(rowSourceOf(src), row, channels, width, t);
const convertRowsH2V2 = (src: Uint8Array, row0: number, row1: number, channels: number, width: number, t: RowTarget): void =>
  convertH2V2(rowSourceOf(src), row0, row1, channels, width, t);

/** Interleaves RGB triples into pixel bytes. */
const pixels = (...rgb: Array<[number, number, number]>): Uint8Array => Uint8Array.from(rgb.flat());

// Two colours whose Cb differ by one: Cb(A) = 128, Cb(B) = 129 (and Cr = 128 for both).
const A: [number, number, number] = [0, 0, 0];
const B: [number, number, number] = [0, 0, 2];

describe('color', () => {
  it('uses JFIF weights that sum to 2^16 for Y and to 0 for Cb and Cr', () => {
    const sum = (w: readonly number[]): number => w[0] + w[1] + w[2];
    assert.deepEqual(YCC_WEIGHTS.y, [19595, 38470, 7471]); // round(0.299, 0.587, 0.114 * 2^16)
    assert.equal(sum(YCC_WEIGHTS.y), 65536);
    assert.equal(sum(YCC_WEIGHTS.cb), 0);
    assert.equal(sum(YCC_WEIGHTS.cr), 0);
  });

  it('gives the same Y, Cb and Cr as the three-weight form for every RGB colour', () => {
    const { y, cb, cr, yOffset, cbcrOffset } = YCC_WEIGHTS;
    for (let rgb = 0; rgb < 1 << 24; rgb++) {
      const [r, g, b] = [rgb >> 16, (rgb >> 8) & 255, rgb & 255];
      if (rgbToLuma(r, g, b) !== direct(y, yOffset, r, g, b)
        || rgbToCb(r, g, b) !== direct(cb, cbcrOffset, r, g, b)
        || rgbToCr(r, g, b) !== direct(cr, cbcrOffset, r, g, b)) {
        assert.fail(`colour ${r},${g},${b}`);
      }
    }
  });

  it('converts primaries with libjpeg rounding, never reaching 256', () => {
    const cases: Array<[string, [number, number, number], [number, number, number]]> = [
      ['black', [0, 0, 0], [0, 128, 128]],
      ['white', [255, 255, 255], [255, 128, 128]],
      ['red', [255, 0, 0], [76, 85, 255]],
      ['green', [0, 255, 0], [150, 44, 21]],
      ['blue', [0, 0, 255], [29, 255, 107]],
      ['B', B, [0, 129, 128]],
    ];
    for (const [name, [r, g, b], expected] of cases) {
      assert.deepEqual([rgbToLuma(r, g, b), rgbToCb(r, g, b), rgbToCr(r, g, b)], expected, name);
    }
  });

  it('converts RGB and RGBA to grey with the luma weights', () => {
    assert.deepEqual([...rgbToGrey(pixels([255, 0, 0], [10, 20, 30]), 3)], [76, rgbToLuma(10, 20, 30)]);
    assert.deepEqual([...rgbToGrey(Uint8Array.from([255, 0, 0, 9, 0, 0, 255, 200]), 4)], [76, 29]);
  });

  it('replicates the last pixel past the image edge at full resolution', () => {
    const t = target(8, 8);
    convertRowH1V1(pixels([255, 0, 0], [0, 0, 255]), 0, 3, 2, t);
    assert.deepEqual([...t.yPlane], [76, 29, 29, 29, 29, 29, 29, 29]);
    assert.deepEqual([...t.cbPlane], [85, 255, 255, 255, 255, 255, 255, 255]);
  });

  it('averages 2:1 with a bias of 0 then 1 along the row', () => {
    const t = target(8, 4);
    convertRowH2V1(pixels(A, B, A, B, A, B, A, B), 0, 3, 8, t);
    assert.deepEqual([...t.cbPlane], [128, 129, 128, 129]); // (257 + 0) >> 1, (257 + 1) >> 1
    assert.deepEqual([...t.crPlane], [128, 128, 128, 128]);
  });

  it('averages 2x2 with a bias of 1 then 2 along the row', () => {
    const t = target(8, 4, 2);
    const row = pixels(A, B, A, B, A, B, A, B);
    convertRowsH2V2(Uint8Array.from([...row, ...row]), 0, 24, 3, 8, t);
    assert.deepEqual([...t.cbPlane], [128, 129, 128, 129]); // (514 + 1) >> 2, (514 + 2) >> 2
  });

  it('gives per-pixel results on the wide RGB paths, for every width remainder and RGB against RGBA', () => {
    // The RGB paths convert 4 pixels (12 bytes) per step; RGBA takes the per-pixel loop.
    for (let width = 1; width <= 13; width++) {
      const rgb = Uint8Array.from({ length: 2 * width * 3 }, (_, i) => (i * 97 + width * 31) & 255);
      const rgba = new Uint8Array(2 * width * 4);
      for (let i = 0; i < 2 * width; i++) rgba.set([...rgb.subarray(3 * i, 3 * i + 3), 255], 4 * i);
      const stride = 8 * Math.ceil(width / 8);
      const [wide, single] = [target(stride, stride), target(stride, stride)];
      convertRowH1V1(rgb, 0, 3, width, wide);
      convertRowH1V1(rgba, 0, 4, width, single);
      assert.deepEqual(wide, single, `4:4:4, width ${width}`);
      const x = Math.min(width - 1, 5);
      const [r, g, b] = rgb.subarray(3 * x, 3 * x + 3);
      assert.deepEqual([wide.yPlane[x], wide.cbPlane[x], wide.crPlane[x]], [rgbToLuma(r, g, b), rgbToCb(r, g, b), rgbToCr(r, g, b)], `width ${width}`);
      const half = 8 * Math.ceil(width / 16);
      const [wide2, single2] = [target(2 * half, half, 2), target(2 * half, half, 2)];
      convertRowsH2V2(rgb, 0, width * 3, 3, width, wide2);
      convertRowsH2V2(rgba, 0, width * 4, 4, width, single2);
      assert.deepEqual(wide2, single2, `4:2:0, width ${width}`);
    }
  });

  it('averages past the edge over the replicated last pixel of an odd width', () => {
    const t = target(8, 8);
    convertRowH2V1(pixels(B, B, A), 0, 3, 3, t);
    // Pair 0: B,B; pair 1: A and A repeated; beyond: A,A; the bias still alternates.
    assert.deepEqual([...t.cbPlane.subarray(0, 3)], [129, 128, 128]);
    assert.deepEqual([...t.yPlane], new Array(8).fill(0));
  });

  it('reads RGBA with the alpha byte ignored', () => {
    const rgb = target(8, 4);
    const rgba = target(8, 4);
    convertRowH2V1(pixels([1, 2, 3], [200, 100, 50], [9, 9, 9]), 0, 3, 3, rgb);
    convertRowH2V1(Uint8Array.from([1, 2, 3, 0, 200, 100, 50, 255, 9, 9, 9, 7]), 0, 4, 3, rgba);
    assert.deepEqual(rgba, rgb);
  });

  it('pads the bottom with the last averaged chroma row, as libjpeg does', () => {
    // Two rows: A then B. 2x2 chroma row 0 averages them; rows 1..7 repeat it
    // rather than averaging B with itself.
    const data = pixels(A, A, B, B);
    const layout = planFrame(2, 2, '4:2:0');
    new McuRowConverter({ data, width: 2, height: 2, channels: 3 }, layout).fill(0);
    const cb = layout.components[1];
    const firstColumn = Array.from({ length: 8 }, (_, row) => cb.plane[row * cb.stride]);
    assert.deepEqual(firstColumn, new Array(8).fill(128)); // (128 + 128 + 129 + 129 + 1) >> 2
    const luma = layout.components[0];
    assert.deepEqual(Array.from({ length: 16 }, (_, row) => luma.plane[row * luma.stride]), new Array(16).fill(0));
  });

  it('copies grey rows and replicates their last column and row', () => {
    const layout = planFrame(3, 2, 'grey');
    new McuRowConverter({ data: Uint8Array.from([1, 2, 3, 4, 5, 6]), width: 3, height: 2, channels: 1 }, layout).fill(0);
    const { plane } = layout.components[0];
    assert.deepEqual([...plane.subarray(0, 8)], [1, 2, 3, 3, 3, 3, 3, 3]);
    assert.deepEqual([...plane.subarray(56, 64)], [4, 5, 6, 6, 6, 6, 6, 6]);
  });
});

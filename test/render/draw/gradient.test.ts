import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Canvas } from '../../../src/render/draw/canvas.js';
import { readFileSync } from 'node:fs';
import { BAYER_8X8, fillLinearGradient } from '../../../src/render/draw/gradient.js';
import { posterSchema } from '../../../src/render/schema.js';
import type { Rgb } from '../../../src/render/draw/color.js';

/** Mean of one channel over rows [y0, y1) and all columns. */
function bandMean(canvas: Canvas, channel: number, y0: number, y1: number): number {
  let total = 0;
  for (let y = y0; y < y1; y++) for (let x = 0; x < canvas.width; x++) total += canvas.data[(y * canvas.width + x) * 3 + channel];
  return total / ((y1 - y0) * canvas.width);
}

describe('BAYER_8X8', () => {
  it('holds each threshold 0..63 exactly once', () => {
    assert.deepEqual([...BAYER_8X8].sort((a, b) => a - b), Array.from({ length: 64 }, (_, i) => i), 'a permutation of 0..63');
  });

  it('starts with the recursive Bayer pattern', () => {
    assert.deepEqual([...BAYER_8X8.subarray(0, 8)], [0, 32, 8, 40, 2, 34, 10, 42], 'first row');
  });
});

describe('fillLinearGradient', () => {
  it('runs top to bottom at 180 degrees, reaching both end colours', () => {
    const canvas = new Canvas(64, 512);
    fillLinearGradient(canvas, { r: 0, g: 0, b: 0 }, { r: 200, g: 100, b: 50 }, 180);
    assert.ok(bandMean(canvas, 0, 0, 8) < 2, `top rows near 0: ${bandMean(canvas, 0, 0, 8)}`);
    assert.ok(bandMean(canvas, 0, 504, 512) > 198, `bottom rows near 200: ${bandMean(canvas, 0, 504, 512)}`);
    assert.ok(Math.abs(bandMean(canvas, 2, 252, 260) - 25) < 0.5, 'blue halfway at 25');
  });

  it('runs left to right at 90 degrees', () => {
    const canvas = new Canvas(256, 16);
    fillLinearGradient(canvas, { r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 }, 90);
    assert.ok(canvas.pixel(0, 8)[0] <= 1, `left edge ${canvas.pixel(0, 8)[0]}`);
    assert.ok(canvas.pixel(255, 8)[0] >= 254, `right edge ${canvas.pixel(255, 8)[0]}`);
  });

  it('dithers a shallow gradient so 8-row bands step by a fraction of a level, not whole levels', () => {
    // 20 levels over 2,436 rows (a dark poster background): one level per ~122 rows.
    const canvas = new Canvas(64, 2436);
    fillLinearGradient(canvas, { r: 20, g: 20, b: 20 }, { r: 40, g: 40, b: 40 }, 180);
    let largestStep = 0;
    for (let y = 8; y + 8 <= 2432; y += 8) {
      largestStep = Math.max(largestStep, Math.abs(bandMean(canvas, 0, y, y + 8) - bandMean(canvas, 0, y - 8, y)));
    }
    // Rounded without dithering, a band boundary jumps a whole level (1.0).
    assert.ok(largestStep < 0.25, `largest step between 8-row bands ${largestStep}`);
    // And the band means follow the exact ramp closely.
    const expected = 20 + (20 * (1000 + 4)) / 2436;
    assert.ok(Math.abs(bandMean(canvas, 0, 1000, 1008) - expected) < 0.1, `band at 1000 ≈ ${expected}`);
  });

  it('gives every pixel floor(v + θ) of the running per-pixel sums, whatever the width and its row alignment', () => {
    // The plain loop the word stores must match byte for byte: widths 1..19 put rows at every
    // offset modulo 4 pixels, with and without whole 8-pixel groups.
    const reference = (canvas: Canvas, from: Rgb, to: Rgb, angle: number) => {
      const { width, height, data } = canvas;
      const dx = Math.sin((angle * Math.PI) / 180);
      const dy = -Math.cos((angle * Math.PI) / 180);
      const length = Math.abs(width * dx) + Math.abs(height * dy);
      let i = 0;
      for (let y = 0; y < height; y++) {
        const t0 = 0.5 + ((0.5 - width / 2) * dx + (y + 0.5 - height / 2) * dy) / length;
        let [r, g, b] = [from.r + (to.r - from.r) * t0, from.g + (to.g - from.g) * t0, from.b + (to.b - from.b) * t0];
        for (let x = 0; x < width; x++, i += 3) {
          const threshold = (BAYER_8X8[((y & 7) << 3) | (x & 7)] + 0.5) / 64;
          [data[i], data[i + 1], data[i + 2]] = [r + threshold, g + threshold, b + threshold];
          r += (to.r - from.r) * (dx / length);
          g += (to.g - from.g) * (dx / length);
          b += (to.b - from.b) * (dx / length);
        }
      }
    };
    const from = { r: 3, g: 200, b: 7 };
    const to = { r: 250, g: 1, b: 128 };
    for (let width = 1; width < 20; width++) {
      for (const angle of [0, 37, 90, 160, 271]) {
        const expected = new Canvas(width, 11);
        const actual = new Canvas(width, 11);
        reference(expected, from, to, angle);
        fillLinearGradient(actual, from, to, angle);
        assert.deepEqual(actual.data, expected.data, `width ${width}, angle ${angle}`);
      }
    }
  });

  it('is deterministic', () => {
    const a = new Canvas(100, 300);
    const b = new Canvas(100, 300);
    fillLinearGradient(a, { r: 10, g: 20, b: 30 }, { r: 90, g: 30, b: 200 }, 160);
    fillLinearGradient(b, { r: 10, g: 20, b: 30 }, { r: 90, g: 30, b: 200 }, 160);
    assert.deepEqual(a.data, b.data, 'same pixels');
  });
});

describe('the gradient angle, as drawn and as documented', () => {
  const WIDTH = 48;
  const HEIGHT = 32;
  /** Which corners (top-left, top-right, bottom-left, bottom-right) get `from` (0) and `to` (255). */
  const cases: [angle: number, words: string, corners: [number, number, number, number]][] = [
    [0, 'bottom to top', [255, 255, 0, 0]],
    [90, 'left to right', [0, 255, 0, 255]],
    [180, 'top to bottom', [0, 0, 255, 255]],
    [270, 'right to left', [255, 0, 255, 0]],
  ];
  const angleDoc = (posterSchema('x') as { properties: { background: { properties: { angle: { description: string } } } } })
    .properties.background.properties.angle.description;
  const page = readFileSync('docs/posters-and-api.md', 'utf8');

  for (const [angle, words, corners] of cases) {
    it(`runs ${words} at ${angle} degrees: corner pixels, schema and docs/posters-and-api.md agree`, () => {
      const canvas = new Canvas(WIDTH, HEIGHT);
      fillLinearGradient(canvas, { r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 }, angle);
      const seen = [canvas.pixel(0, 0)[0], canvas.pixel(WIDTH - 1, 0)[0], canvas.pixel(0, HEIGHT - 1)[0], canvas.pixel(WIDTH - 1, HEIGHT - 1)[0]];
      // A corner pixel's centre is half a pixel inside the gradient line's end: within 8 levels.
      for (let i = 0; i < 4; i++) assert.ok(Math.abs(seen[i]! - corners[i]!) <= 8, `angle ${angle}: corners ${seen.join(' ')}, expected ${corners.join(' ')}`);
      assert.ok(angleDoc.includes(`${angle} = ${words}`), `schema says: ${angleDoc}`);
      assert.ok(page.includes(`${angle} = ${words}`), `docs/posters-and-api.md names angle ${angle} as ${words}`);
    });
  }
});

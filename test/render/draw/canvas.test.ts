import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Canvas } from '../../../src/render/draw/canvas.js';
import { PathBuilder } from '../../../src/render/draw/path.js';
import { fillPath } from '../../../src/render/draw/shapes.js';

const WHITE = { r: 255, g: 255, b: 255 };
const RED = { r: 255, g: 0, b: 0 };

/** A 3 × 2 mask: full, half and no coverage on the first row, quarter coverage on the second. */
const MASK = { x: -1, y: 1, width: 3, height: 2, data: Float32Array.of(1, 0.5, 0, 0.25, 0.25, 0.25) };

function canvasWith(draw: (canvas: Canvas) => void): Canvas {
  const canvas = new Canvas(6, 5);
  canvas.clear(WHITE);
  draw(canvas);
  return canvas;
}

describe('Canvas.fillMask', () => {
  it('places the mask at its position plus (dx, dy), as if it had been moved there', () => {
    const offset = canvasWith((c) => c.fillMask(MASK, RED, 1, 3, 2));
    const moved = canvasWith((c) => c.fillMask({ ...MASK, x: MASK.x + 3, y: MASK.y + 2 }, RED, 1));
    assert.deepEqual(offset.data, moved.data, 'same pixels');
    assert.deepEqual(offset.pixel(2, 3), [255, 0, 0], 'full coverage at (-1 + 3, 1 + 2)');
    assert.deepEqual(offset.pixel(3, 3), [255, 128, 128], 'half coverage next to it');
    assert.deepEqual(offset.pixel(4, 4), [255, 191, 191], 'a quarter on the row below');
    assert.deepEqual(offset.pixel(0, 0), [255, 255, 255], 'nothing elsewhere');
  });

  it('clips a mask moved partly off the canvas', () => {
    const canvas = canvasWith((c) => c.fillMask(MASK, RED, 1, 0, 3));
    assert.deepEqual(canvas.pixel(0, 4), [255, 128, 128], 'its first row, the column left of the canvas cut off');
    assert.deepEqual(canvas.pixel(0, 3), [255, 255, 255], 'nothing above the mask');
  });
});

describe('Canvas.release', () => {
  it('frees the pixels at once: the bytes are detached, zero of them left', () => {
    const canvas = canvasWith(() => undefined);
    canvas.release();
    assert.equal(canvas.data.length, 0, 'detached');
  });
});

describe('Canvas.fillAccumulated', () => {
  it('blends long runs of one α exactly as the per-pixel formula, at every start and length', () => {
    const color = { r: 200, g: 30, b: 90 };
    const opacity = 0.3;
    for (let x = 0; x < 5; x++) {
      for (let width = BlendRuns.min; width < BlendRuns.min + 6; width++) {
        const canvas = new Canvas(64, 3);
        for (let i = 0; i < canvas.data.length; i++) canvas.data[i] = (i * 37 + x) & 255;
        const before = canvas.data.slice();
        const path = new PathBuilder().moveTo(x, 1).lineTo(x + width, 1).lineTo(x + width, 2).lineTo(x, 2).close();
        fillPath(canvas, path, color, opacity);
        const expected = before.slice();
        for (let px = x; px < x + width; px++) {
          const i = (64 + px) * 3;
          [color.r, color.g, color.b].forEach((c, k) => (expected[i + k] = Math.trunc(before[i + k]! + (c - before[i + k]!) * opacity + 0.5)));
        }
        assert.deepEqual(canvas.data, expected, `run from x = ${x}, ${width} pixels`);
      }
    }
  });
});

/** Runs from this length on go through the blend table (Canvas's BlendTable.MIN_RUN). */
const BlendRuns = { min: 48 } as const;

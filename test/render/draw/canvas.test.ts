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

describe('Canvas bands', () => {
  it('holds a band of rows: the rows a mask reaches there get what the whole canvas gives them', () => {
    const whole = canvasWith((c) => c.fillMask(MASK, RED, 1, 2, 2));
    const band = new Canvas(6, 5, 2);
    band.showRows(3);
    band.clear(WHITE);
    band.fillMask(MASK, RED, 1, 2, 2);
    assert.equal(band.data.length, 6 * 2 * 3, 'two rows of bytes');
    assert.deepEqual([band.top, band.bottom], [3, 5]);
    for (let x = 0; x < 6; x++) {
      assert.deepEqual(band.pixel(x, 3), whole.pixel(x, 3), `(${x}, 3)`);
      assert.deepEqual(band.pixel(x, 4), whole.pixel(x, 4), `(${x}, 4)`);
    }
  });

  it('ends the last band at the picture: a band of 2 from row 4 of 5 holds one row', () => {
    const band = new Canvas(6, 5, 2);
    band.showRows(4);
    assert.equal(band.bottom, 5);
    assert.throws(() => band.pixel(0, 5), { name: 'RangeError', message: 'row 5 is not held (rows 4 to 4)' });
    assert.throws(() => band.pixel(0, 3), { name: 'RangeError', message: 'row 3 is not held (rows 4 to 4)' });
  });

  it('refuses a band that does not fit and a first row off the picture', () => {
    assert.throws(() => new Canvas(6, 5, 6), { name: 'TypeError', message: 'a canvas band of 6 rows does not fit 1 to 5' });
    assert.throws(() => new Canvas(6, 5, 0), { name: 'TypeError', message: 'a canvas band of 0 rows does not fit 1 to 5' });
    const band = new Canvas(6, 5, 2);
    assert.throws(() => band.showRows(5), { name: 'RangeError', message: 'row 5 is not within 0 to 4' });
    assert.throws(() => band.showRows(-1), { name: 'RangeError', message: 'row -1 is not within 0 to 4' });
    assert.throws(() => band.showRows(1.5), { name: 'RangeError', message: 'row 1.5 is not within 0 to 4' });
  });
});

describe('Canvas.showRows', () => {
  it('holds fewer rows than the band when asked: drawing leaves the rest of the band alone', () => {
    const band = new Canvas(6, 5, 3);
    band.showRows(1);
    band.clear(WHITE);
    band.showRows(1, 2);
    assert.deepEqual([band.top, band.bottom], [1, 3]);
    band.fillMask({ x: 0, y: 0, width: 6, height: 5, data: new Float32Array(30).fill(1) }, RED);
    assert.deepEqual([...band.data.subarray(0, 6 * 2 * 3)], new Array(12).fill([255, 0, 0]).flat(), 'rows 1 and 2 red');
    assert.deepEqual([...band.data.subarray(6 * 2 * 3)], new Array(18).fill(255), 'the band\'s third row untouched');
    assert.throws(() => band.showRows(0, 4), { name: 'RangeError', message: '4 rows do not fit a band of 3' });
  });
});

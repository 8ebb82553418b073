import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Canvas } from '../../../src/render/draw/canvas.js';
import { parseHexColor } from '../../../src/render/draw/color.js';
import { axisCoverage, fillCircle, fillRect, fillRoundedRect, strokeLine } from '../../../src/render/draw/shapes.js';

const WHITE = { r: 255, g: 255, b: 255 };
const BLACK = { r: 0, g: 0, b: 0 };

/** Sum of the red channel / 255 over the canvas: the drawn area when white is drawn on black. */
function inkArea(canvas: Canvas): number {
  let total = 0;
  for (let i = 0; i < canvas.data.length; i += 3) total += canvas.data[i];
  return total / 255;
}

function blackCanvas(width = 200, height = 200): Canvas {
  const canvas = new Canvas(width, height);
  canvas.clear(BLACK);
  return canvas;
}

describe('axisCoverage', () => {
  it('gives the overlap of an interval with each pixel', () => {
    const { first, coverage } = axisCoverage(1.25, 2.5);
    assert.equal(first, 1, 'first pixel');
    assert.deepEqual(Array.from(coverage), [0.75, 1, 0.75], 'coverage per pixel');
  });

  it('gives a sliver inside one pixel its width', () => {
    const { first, coverage } = axisCoverage(4.2, 0.5);
    assert.equal(first, 4, 'first pixel');
    assert.equal(coverage.length, 1, 'one pixel');
    assert.ok(Math.abs(coverage[0] - 0.5) < 1e-6, `coverage ${coverage[0]}`);
  });
});

describe('fillRect', () => {
  it('draws a fractional rectangle with its exact area and partial edge pixels', () => {
    const canvas = blackCanvas(20, 20);
    fillRect(canvas, 2.5, 3.25, 10, 5.5, WHITE);
    assert.ok(Math.abs(inkArea(canvas) - 55) < 0.1, `area ${inkArea(canvas)} is 55 within rounding`);
    assert.deepEqual(canvas.pixel(5, 5), [255, 255, 255], 'inside is white');
    assert.deepEqual(canvas.pixel(2, 5), [128, 128, 128], 'left edge half covered');
    assert.deepEqual(canvas.pixel(2, 3), [96, 96, 96], 'corner 0.5 x 0.75 covered');
    assert.deepEqual(canvas.pixel(15, 5), [0, 0, 0], 'outside untouched');
  });

  it('composites with opacity over what is already there', () => {
    const canvas = blackCanvas(4, 4);
    canvas.clear({ r: 100, g: 0, b: 200 });
    fillRect(canvas, 0, 0, 4, 4, { r: 200, g: 100, b: 0 }, 0.25);
    assert.deepEqual(canvas.pixel(1, 1), [125, 25, 150], 'dst + (src - dst) * 0.25');
  });

  it('clips a rectangle that runs off the canvas', () => {
    const canvas = blackCanvas(10, 10);
    fillRect(canvas, -5, -5, 8, 8, WHITE);
    assert.ok(Math.abs(inkArea(canvas) - 9) < 1e-9, `visible area ${inkArea(canvas)} is 3 x 3`);
  });
});

describe('fillCircle', () => {
  it('draws a disc with area within 0.5 % of pi r squared', () => {
    const canvas = blackCanvas(200, 200);
    fillCircle(canvas, 100.3, 99.6, 61.7, WHITE);
    const area = Math.PI * 61.7 * 61.7;
    assert.ok(Math.abs(inkArea(canvas) - area) / area < 0.005, `disc area ${inkArea(canvas)} vs ${area}`);
    assert.deepEqual(canvas.pixel(100, 100), [255, 255, 255], 'centre covered');
    assert.deepEqual(canvas.pixel(100, 30), [0, 0, 0], 'outside untouched');
  });

  it('clips a disc at the canvas corner to the visible quarter', () => {
    const canvas = blackCanvas(200, 200);
    fillCircle(canvas, 0, 0, 50, WHITE);
    const quarter = (Math.PI * 50 * 50) / 4;
    assert.ok(Math.abs(inkArea(canvas) - quarter) / quarter < 0.005, `visible area ${inkArea(canvas)} vs ${quarter}`);
    assert.deepEqual(canvas.pixel(0, 0), [255, 255, 255], 'corner pixel covered');
  });

  it('anti-aliases the rim with intermediate values', () => {
    const canvas = blackCanvas(100, 100);
    fillCircle(canvas, 50, 50, 30, WHITE);
    const rim = canvas.pixel(50 + 21, 50 + 21)[0]; // 29.7 px from the centre: on the edge
    assert.ok(rim > 0 && rim < 255, `rim pixel ${rim} is partial`);
  });
});

describe('fillRoundedRect', () => {
  it('covers the rectangle minus the four corners cut by the radius', () => {
    const canvas = blackCanvas(200, 200);
    fillRoundedRect(canvas, 20, 30, 150, 100, 25, WHITE);
    const area = 150 * 100 - (4 - Math.PI) * 25 * 25;
    assert.ok(Math.abs(inkArea(canvas) - area) / area < 0.002, `rounded rect area ${inkArea(canvas)} vs ${area}`);
    assert.deepEqual(canvas.pixel(20, 30), [0, 0, 0], 'the corner pixel is cut away');
    assert.deepEqual(canvas.pixel(20, 80), [255, 255, 255], 'the middle of the left side is covered');
  });

  it('limits the radius to half the shorter side (a pill)', () => {
    const canvas = blackCanvas(200, 100);
    fillRoundedRect(canvas, 10, 10, 100, 40, 500, WHITE);
    const area = 60 * 40 + Math.PI * 20 * 20;
    assert.ok(Math.abs(inkArea(canvas) - area) / area < 0.005, `pill area ${inkArea(canvas)} vs ${area}`);
  });
});

describe('strokeLine', () => {
  it('covers length times width for a diagonal line', () => {
    const canvas = blackCanvas(200, 200);
    strokeLine(canvas, 20, 30, 170, 150, 6, WHITE);
    const area = Math.hypot(150, 120) * 6;
    assert.ok(Math.abs(inkArea(canvas) - area) / area < 0.005, `line area ${inkArea(canvas)} vs ${area}`);
  });

  it('draws nothing for a zero-length line', () => {
    const canvas = blackCanvas(10, 10);
    strokeLine(canvas, 5, 5, 5, 5, 4, WHITE);
    assert.equal(inkArea(canvas), 0, 'no ink');
  });
});

describe('parseHexColor', () => {
  it('reads #rrggbb in either case and refuses other forms', () => {
    assert.deepEqual(parseHexColor('#FbBf24'), { r: 251, g: 191, b: 36 }, 'mixed case');
    assert.throws(() => parseHexColor('#fff'), TypeError, 'short form');
  });
});

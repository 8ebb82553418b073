import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arcSegments, FLATTEN_TOLERANCE, PathBuilder } from '../../../src/render/draw/path.js';
import { accumulatePath, BAND_ROWS, BandedPath, rasterize, type CoverageMask } from '../../../src/render/draw/rasterize.js';

const sum = (mask: CoverageMask) => mask.data.reduce((a, b) => a + b, 0);
const at = (mask: CoverageMask, x: number, y: number) => mask.data[(y - mask.y) * mask.width + (x - mask.x)];

function rect(path: PathBuilder, x: number, y: number, w: number, h: number, clockwise = true): PathBuilder {
  return clockwise
    ? path.moveTo(x, y).lineTo(x + w, y).lineTo(x + w, y + h).lineTo(x, y + h).close()
    : path.moveTo(x, y).lineTo(x, y + h).lineTo(x + w, y + h).lineTo(x + w, y).close();
}

describe('rasterize', () => {
  it('covers a pixel-aligned square exactly: 1 inside, 0 outside', () => {
    const mask = rasterize(rect(new PathBuilder(), 2, 3, 10, 10));
    assert.deepEqual([mask.x, mask.y, mask.width, mask.height], [2, 3, 10, 10], 'mask bounds');
    assert.ok(mask.data.every((v) => Math.abs(v - 1) < 1e-6), 'every pixel fully covered');
  });

  it('gives a fractional square its exact area and per-pixel partial coverage', () => {
    const mask = rasterize(rect(new PathBuilder(), 0.25, 0.5, 3.5, 2.25));
    assert.ok(Math.abs(sum(mask) - 3.5 * 2.25) < 1e-5, `area ${sum(mask)} is 7.875`);
    assert.ok(Math.abs(at(mask, 0, 0) - 0.75 * 0.5) < 1e-6, 'corner pixel 0.75 x 0.5');
    assert.ok(Math.abs(at(mask, 1, 1) - 1) < 1e-6, 'inner pixel full');
    assert.ok(Math.abs(at(mask, 3, 2) - 0.75 * 0.75) < 1e-6, 'far corner 0.75 x 0.75');
  });

  it('covers a right triangle with its area, half of each diagonal pixel', () => {
    const mask = rasterize(new PathBuilder().moveTo(0, 0).lineTo(8, 0).lineTo(0, 8).close());
    assert.ok(Math.abs(sum(mask) - 32) < 1e-5, `triangle area ${sum(mask)} is 32`);
    assert.ok(Math.abs(at(mask, 3, 4) - 0.5) < 1e-6, 'pixel on the diagonal is half covered');
    assert.equal(at(mask, 7, 7), 0, 'pixel past the diagonal is empty');
  });

  it('covers a circle with its area within 0.5 %', () => {
    for (const r of [3.3, 40, 500]) {
      const mask = rasterize(new PathBuilder().arc(600, 600, r, 0, 2 * Math.PI).close());
      const area = Math.PI * r * r;
      assert.ok(Math.abs(sum(mask) - area) / area < 0.005, `circle r=${r}: coverage ${sum(mask)} vs ${area}`);
    }
  });

  it('leaves a hole where an inner contour runs the other way (non-zero winding)', () => {
    const path = rect(new PathBuilder(), 0, 0, 10, 10, true);
    rect(path, 3, 3, 4, 4, false);
    const mask = rasterize(path);
    assert.ok(Math.abs(sum(mask) - (100 - 16)) < 1e-5, `ring area ${sum(mask)} is 84`);
    assert.equal(at(mask, 5, 5), 0, 'the hole is empty');
  });

  it('keeps overlapping contours that wind the same way at full coverage, not double', () => {
    const path = rect(new PathBuilder(), 0, 0, 6, 6);
    rect(path, 3, 3, 6, 6);
    const mask = rasterize(path);
    assert.equal(at(mask, 4, 4), 1, 'overlap pixel is 1');
    assert.ok(Math.abs(sum(mask) - (36 + 36 - 9)) < 1e-5, `union area ${sum(mask)} is 63`);
  });

  it('folds coverage left of the clip into its first column and drops what is right of it', () => {
    const clip = { x: 0, y: 0, width: 4, height: 4 };
    const mask = rasterize(rect(new PathBuilder(), -3.5, 1, 5, 2), clip);
    assert.deepEqual([mask.x, mask.width], [0, 2], 'clipped to the canvas side');
    assert.equal(at(mask, 0, 1), 1, 'column 0 covered through the fold');
    assert.ok(Math.abs(at(mask, 1, 1) - 0.5) < 1e-6, 'the right edge at x=1.5 half covers column 1');
    const wide = rasterize(rect(new PathBuilder(), 1, 1, 100, 1), clip);
    assert.ok(Math.abs(sum(wide) - 3) < 1e-6, `right part dropped: ${sum(wide)}`);
  });

  it('returns an empty mask for an empty path', () => {
    const mask = rasterize(new PathBuilder());
    assert.equal(mask.data.length, 0, 'no pixels');
  });
});

describe('PathBuilder', () => {
  it('flattens a quadratic curve to within the tolerance of the true curve', () => {
    // Not symmetric, so no flattened step is horizontal (those are not stored as edges).
    const path = new PathBuilder().moveTo(0, 0).quadTo(30, 100, 100, 20);
    const e = path.edges();
    const toSegment = (px: number, py: number, i: number) => {
      const [x0, y0, x1, y1] = [e[i], e[i + 1], e[i + 2], e[i + 3]];
      const t = Math.max(0, Math.min(1, ((px - x0) * (x1 - x0) + (py - y0) * (y1 - y0)) / ((x1 - x0) ** 2 + (y1 - y0) ** 2)));
      return Math.hypot(px - (x0 + t * (x1 - x0)), py - (y0 + t * (y1 - y0)));
    };
    let worst = 0;
    for (let k = 0; k <= 1000; k++) {
      const t = k / 1000;
      const [px, py] = [2 * (1 - t) * t * 30 + t * t * 100, 2 * (1 - t) * t * 100 + t * t * 20];
      let nearest = Infinity;
      for (let i = 0; i < e.length; i += 4) nearest = Math.min(nearest, toSegment(px, py, i));
      worst = Math.max(worst, nearest);
    }
    assert.ok(worst <= FLATTEN_TOLERANCE, `worst distance ${worst} within ${FLATTEN_TOLERANCE}`);
    assert.ok(path.edgeCount < 100, `edge count ${path.edgeCount} stays small`);
  });

  it('chooses more arc segments for bigger radii', () => {
    assert.ok(arcSegments(500, 2 * Math.PI) > arcSegments(5, 2 * Math.PI), 'bigger circle, more segments');
    const r = 500;
    const n = arcSegments(r, 2 * Math.PI);
    const sagitta = r * (1 - Math.cos(Math.PI / n));
    assert.ok(sagitta <= FLATTEN_TOLERANCE, `sagitta ${sagitta} within tolerance`);
  });

  it('refuses lineTo before moveTo', () => {
    assert.throws(() => new PathBuilder().lineTo(1, 1), TypeError, 'lineTo first');
  });
});

/** A circle and a rectangle running off the clip's top, and that clip's whole accumulation. */
function circleAndRect() {
  const path = new PathBuilder().arc(30.3, 20.7, 25.2, 0, 2 * Math.PI).close();
  rect(path, 40.5, -3.25, 30, 50.5, false);
  const clip = { x: 0, y: 0, width: 60, height: 70 };
  return { path, clip, whole: accumulatePath(path, clip) };
}

describe('BandedPath', () => {
  it('hands over bands of BAND_ROWS rows holding exactly what accumulatePath holds for those rows', () => {
    const { path, clip, whole } = circleAndRect();
    const rows: number[] = [];
    new BandedPath(path, clip).accumulate(-Infinity, Infinity, new Float32Array(60 * BAND_ROWS), (band) => {
      assert.equal(band.x, whole.x, 'band x');
      assert.ok(band.height <= BAND_ROWS, `band of ${band.height} rows`);
      const offset = (band.y - whole.y) * whole.width;
      assert.deepEqual(band.data, whole.data.subarray(offset, offset + band.height * whole.width), `rows from ${band.y}`);
      rows.push(band.height);
    });
    assert.equal(rows.reduce((a, b) => a + b, 0), whole.height, 'every row once');
  });

  it('hands over nothing for a path outside the clip', () => {
    let bands = 0;
    new BandedPath(rect(new PathBuilder(), 100, 100, 5, 5), { x: 0, y: 0, width: 50, height: 50 }).accumulate(-Infinity, Infinity, new Float32Array(0), () => bands++);
    assert.equal(bands, 0);
  });

  it('gives any range of rows, asked for again and again, exactly what accumulatePath holds for them', () => {
    const { path, clip, whole } = circleAndRect();
    const banded = new BandedPath(path, clip);
    assert.deepEqual(banded.bounds, { x: whole.x, y: whole.y, width: whole.width, height: whole.height }, 'the same bounds');
    assert.throws(() => banded.accumulate(0, 7, new Float32Array(banded.bandLength - 1), () => undefined), {
      name: 'RangeError', message: `a band needs ${banded.bandLength} coverage values, the scratch buffer has ${banded.bandLength - 1}`,
    });
    for (const [top, bottom] of [[0, 7], [7, 8], [-5, 3], [13, 45], [40, 1000], [0, 7]] as const) {
      const seen: number[] = [];
      banded.accumulate(top, bottom, new Float32Array(banded.bandLength).fill(7), (band) => {
        const offset = (band.y - whole.y) * whole.width;
        assert.deepEqual(band.data, whole.data.subarray(offset, offset + band.height * whole.width), `rows from ${band.y}`);
        for (let y = band.y; y < band.y + band.height; y++) seen.push(y);
      });
      const expected: number[] = [];
      for (let y = Math.max(top, whole.y); y < Math.min(bottom, whole.y + whole.height); y++) expected.push(y);
      assert.deepEqual(seen, expected, `rows ${top} to ${bottom}, each once`);
    }
  });
});

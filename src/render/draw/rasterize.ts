/**
 * Scanline rasteriser with exact area coverage (the signed-area accumulation method of
 * stb_truetype v2 and font-rs, written from the idea): each edge adds, per pixel row it
 * crosses, the change of covered area from one pixel to the next; a running sum along the row
 * then gives each pixel's signed coverage. Non-zero winding is approximated as min(1, |sum|),
 * which is exact wherever contours do not overlap each other inside a pixel.
 */
import type { PathBuilder } from './path.js';

/** A coverage bitmap (0..1 per pixel) placed at (x, y) on a canvas. */
export interface CoverageMask {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly data: Float32Array;
}

/** The pixel rectangle a path may touch, limited to `clip` (x, y, width, height) when given. */
export function maskBounds(
  path: PathBuilder, clip?: { x: number; y: number; width: number; height: number },
): { x: number; y: number; width: number; height: number } {
  if (path.edgeCount === 0) return { x: 0, y: 0, width: 0, height: 0 };
  let x0 = Math.floor(path.minX);
  let y0 = Math.floor(path.minY);
  let x1 = Math.ceil(path.maxX);
  let y1 = Math.ceil(path.maxY);
  if (clip !== undefined) {
    x0 = Math.max(x0, clip.x);
    y0 = Math.max(y0, clip.y);
    x1 = Math.min(x1, clip.x + clip.width);
    y1 = Math.min(y1, clip.y + clip.height);
  }
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

/**
 * The first half of rasterising: every edge of `path` accumulated into a buffer over its bounds
 * (clipped), holding per-pixel differences of coverage along each row. `resolveCoverage` or a
 * fused consumer (`Canvas.fillAccumulated`) turns it into coverage.
 */
export function accumulatePath(path: PathBuilder, clip?: { x: number; y: number; width: number; height: number }): CoverageMask {
  const bounds = maskBounds(path, clip);
  const { width, height } = bounds;
  const data = new Float32Array(width * height);
  if (width > 0 && height > 0) accumulateRows(path.edges(), bounds, data, 0, height);
  return { ...bounds, data };
}

/** Rows per band in {@link BandedPath}: a band of a poster-wide shape is 72 KB. */
export const BAND_ROWS = 16;

/**
 * A path made ready to accumulate any range of rows, as often as asked, {@link BAND_ROWS} rows
 * at a time into a scratch buffer the caller lends: big shapes need one band of memory instead
 * of a buffer over their whole bounds, and a picture's shapes can share it. The bounds and
 * edges are worked out once, for a shape painted into a picture band by band. Rows are counted from the bounds' top whatever the range, so each pixel gets
 * the additions {@link accumulatePath} gives it, in the same order, whichever band it falls in:
 * the coverage is bit for bit the same.
 */
export class BandedPath {
  /** The pixel rectangle the path may touch (clipped). */
  readonly bounds: { x: number; y: number; width: number; height: number };
  readonly #edges: Float64Array;

  constructor(path: PathBuilder, clip?: { x: number; y: number; width: number; height: number }) {
    this.bounds = maskBounds(path, clip);
    this.#edges = path.edges();
  }

  /** Coverage values one band takes: the scratch buffer `accumulate` needs at least. */
  get bandLength(): number {
    return this.bounds.width * Math.min(BAND_ROWS, this.bounds.height);
  }

  /**
   * Hands `consume` the rows from canvas row `top` up to (not including) `bottom` that lie in
   * the bounds, {@link BAND_ROWS} at a time, each accumulated in `scratch` (at least
   * `bandLength` values); `consume` must use each band before it returns (the buffer is
   * reused for the next).
   */
  accumulate(top: number, bottom: number, scratch: Float32Array, consume: (band: CoverageMask) => void): void {
    const { x, y, width, height } = this.bounds;
    if (width === 0 || height === 0) return;
    if (scratch.length < this.bandLength) throw new RangeError(`a band needs ${this.bandLength} coverage values, the scratch buffer has ${scratch.length}`);
    const from = Math.max(0, top - y);
    const to = Math.min(height, bottom - y);
    for (let first = from; first < to; first += BAND_ROWS) {
      const end = Math.min(to, first + BAND_ROWS);
      const rows = end - first;
      const band = scratch.subarray(0, rows * width);
      band.fill(0);
      accumulateRows(this.#edges, this.bounds, band, first, end);
      consume({ x, y: y + first, width, height: rows, data: band });
    }
  }
}

/** Every edge (x0, y0, x1, y1 in canvas pixels) added to mask rows [first, end) of `acc`. */
function accumulateRows(
  edges: Float64Array, bounds: { x: number; y: number; width: number }, acc: Float32Array, first: number, end: number,
): void {
  const { x, y, width } = bounds;
  const top = y + first;
  const bottom = y + end;
  for (let i = 0; i + 3 < edges.length; i += 4) {
    const y0 = edges[i + 1]!;
    const y1 = edges[i + 3]!;
    // Skipped here, not in accumulateEdge: a band of a big shape meets few of its edges, and a
    // call that is not inlined boxes its four coordinates (a circle's bands made 1 MB of them).
    if ((y0 < y1 ? y1 : y0) <= top || (y0 < y1 ? y0 : y1) >= bottom) continue;
    accumulateEdge(acc, width, first, end, edges[i]! - x, y0 - y, edges[i + 2]! - x, y1 - y);
  }
}

/** Running sums along each row, in place: coverage = min(1, |sum|). */
export function resolveCoverage(mask: CoverageMask): CoverageMask {
  const { width, height, data } = mask;
  for (let row = 0; row < height; row++) {
    let sum = 0;
    const end = (row + 1) * width;
    for (let i = row * width; i < end; i++) {
      sum += data[i]!;
      const c = sum < 0 ? -sum : sum;
      data[i] = c > 1 ? 1 : c;
    }
  }
  return mask;
}

/** Rasterises the closed contours of `path` into a coverage mask over its bounds (clipped). */
export function rasterize(path: PathBuilder, clip?: { x: number; y: number; width: number; height: number }): CoverageMask {
  return resolveCoverage(accumulatePath(path, clip));
}

/**
 * Adds one edge (mask coordinates) to the accumulation buffer, which holds mask rows
 * [rowStart, rowEnd) (row r at offset (r - rowStart) * width). In a row the edge covers a
 * height d (signed by direction) between x = xa and x = xb; the part of pixel k right of the
 * edge is d·(F(k+1) − F(k)) with F the integral of the fraction of d lying left of x:
 * F(x) = 0 before xa, (x − xa)² / 2(xb − xa) between, (xb − xa)/2 + (x − xb) after.
 * The buffer stores differences between neighbouring pixels; columns left of the mask fold
 * into column 0 (the running sum starts there), columns right of it are dropped.
 */
export function accumulateEdge(
  acc: Float32Array, width: number, rowStart: number, rowEnd: number, x0: number, y0: number, x1: number, y1: number,
): void {
  if (y0 === y1) return;
  let dir = 1;
  if (y0 > y1) {
    dir = -1;
    const x = x0;
    const y = y0;
    x0 = x1;
    y0 = y1;
    x1 = x;
    y1 = y;
  }
  const dxdy = (x1 - x0) / (y1 - y0);
  const rowFirst = Math.max(rowStart, Math.floor(y0));
  const rowLast = Math.min(rowEnd, Math.ceil(y1));
  for (let row = rowFirst; row < rowLast; row++) {
    const top = Math.max(row, y0);
    const bottom = Math.min(row + 1, y1);
    const d = (bottom - top) * dir;
    const xTop = x0 + (top - y0) * dxdy;
    const xBottom = x0 + (bottom - y0) * dxdy;
    const xa = xTop < xBottom ? xTop : xBottom;
    const xb = xTop < xBottom ? xBottom : xTop;
    const base = (row - rowStart) * width;
    let k = Math.floor(xa);
    if (k >= width) continue; // the whole crossing is right of the mask
    let previous = 0; // coverage of pixel k - 1
    if (k < 0) {
      previous = d * (coveredIntegral(0, xa, xb) - coveredIntegral(-1, xa, xb));
      acc[base]! += previous; // everything left of column 0 folds into it
      k = 0;
    }
    const last = Math.min(width - 1, Math.floor(xb) + 1);
    let fk = coveredIntegral(k, xa, xb);
    for (; k <= last; k++) {
      const fk1 = coveredIntegral(k + 1, xa, xb);
      const coverage = d * (fk1 - fk);
      acc[base + k]! += coverage - previous;
      previous = coverage;
      fk = fk1;
    }
  }
}

/** F(x) above for an edge crossing the row between xa ≤ xb; a vertical edge is a step at xa. */
function coveredIntegral(x: number, xa: number, xb: number): number {
  if (x <= xa) return 0;
  if (x >= xb) return (xb - xa) / 2 + (x - xb);
  return ((x - xa) * (x - xa)) / (2 * (xb - xa));
}

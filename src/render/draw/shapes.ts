/**
 * Anti-aliased shapes in canvas pixels: rectangles by exact separable area coverage, rounded
 * rectangles, circles and lines through the area rasteriser. Each is a Paint made for a picture
 * of a given size (`...Paint`), which the `fill...`/`strokeLine` functions paint at once.
 */
import type { Canvas } from './canvas.js';
import type { Rgb } from './color.js';
import { NOTHING, type Paint } from './paint.js';
import { PathBuilder } from './path.js';
import { BandedPath, type CoverageMask } from './rasterize.js';

/** A picture's size: shapes are clipped to it. */
export interface PictureSize {
  readonly width: number;
  readonly height: number;
}

/**
 * Per-pixel overlap of [start, start + size) with pixels [first, first + n): the exact
 * coverage of one axis of an axis-aligned rectangle.
 */
export function axisCoverage(start: number, size: number): { first: number; coverage: Float32Array } {
  const end = start + size;
  const first = Math.floor(start);
  const n = Math.max(0, Math.ceil(end) - first);
  const coverage = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    const p = first + k;
    coverage[k] = Math.max(0, Math.min(p + 1, end) - Math.max(p, start));
  }
  return { first, coverage };
}

/** A rectangle, exact area coverage on both axes. */
export function rectPaint(x: number, y: number, width: number, height: number, color: Rgb, opacity = 1): Paint {
  if (width <= 0 || height <= 0) return NOTHING;
  const columns = axisCoverage(x, width);
  const rows = axisCoverage(y, height);
  return {
    top: rows.first,
    bottom: rows.first + rows.coverage.length,
    paint: (canvas) => canvas.fillSeparable(columns.first, columns.coverage, rows.first, rows.coverage, color, opacity),
  };
}

/** A rectangle with circular corners of `radius` (limited to half the shorter side). */
export function roundedRectPaint(
  picture: PictureSize, x: number, y: number, width: number, height: number, radius: number, color: Rgb, opacity = 1,
): Paint {
  const r = Math.min(radius, width / 2, height / 2);
  if (r <= 0) return rectPaint(x, y, width, height, color, opacity);
  const half = Math.PI / 2;
  const path = new PathBuilder()
    .moveTo(x + r, y)
    .lineTo(x + width - r, y)
    .arc(x + width - r, y + r, r, -half, 0)
    .lineTo(x + width, y + height - r)
    .arc(x + width - r, y + height - r, r, 0, half)
    .lineTo(x + r, y + height)
    .arc(x + r, y + height - r, r, half, 2 * half)
    .lineTo(x, y + r)
    .arc(x + r, y + r, r, 2 * half, 3 * half)
    .close();
  return pathPaint(picture, path, color, opacity);
}

/** A disc of radius r centred on (cx, cy). */
export function circlePaint(picture: PictureSize, cx: number, cy: number, r: number, color: Rgb, opacity = 1): Paint {
  if (r <= 0) return NOTHING;
  return pathPaint(picture, new PathBuilder().arc(cx, cy, r, 0, 2 * Math.PI).close(), color, opacity);
}

/** A straight line of `width` pixels from (x1, y1) to (x2, y2), with butt ends. */
export function linePaint(
  picture: PictureSize, x1: number, y1: number, x2: number, y2: number, width: number, color: Rgb, opacity = 1,
): Paint {
  const length = Math.hypot(x2 - x1, y2 - y1);
  if (length === 0 || width <= 0) return NOTHING;
  // Half the width along the normal on each side.
  const nx = (-(y2 - y1) / length) * (width / 2);
  const ny = ((x2 - x1) / length) * (width / 2);
  const path = new PathBuilder()
    .moveTo(x1 + nx, y1 + ny)
    .lineTo(x2 + nx, y2 + ny)
    .lineTo(x2 - nx, y2 - ny)
    .lineTo(x1 - nx, y1 - ny)
    .close();
  return pathPaint(picture, path, color, opacity);
}

/**
 * A path rasterised within the picture and composited band by band: its edges are prepared
 * once, and each band of the canvas gets the rows it holds.
 */
export function pathPaint(picture: PictureSize, path: PathBuilder, color: Rgb, opacity = 1): Paint {
  const banded = new BandedPath(path, { x: 0, y: 0, width: picture.width, height: picture.height });
  // One set of blend tables per canvas painted on, made when it is first painted.
  let target: Canvas | undefined;
  let fill: (band: CoverageMask) => void = () => undefined;
  return {
    top: banded.bounds.y,
    bottom: banded.bounds.y + banded.bounds.height,
    paint(canvas) {
      if (canvas !== target) {
        target = canvas;
        fill = canvas.accumulatedFill(color, opacity);
      }
      banded.accumulate(canvas.top, canvas.bottom, canvas.coverageScratch(banded.bandLength), fill);
    },
  };
}

/** A rectangle, painted now (see rectPaint). */
export function fillRect(canvas: Canvas, x: number, y: number, width: number, height: number, color: Rgb, opacity = 1): void {
  rectPaint(x, y, width, height, color, opacity).paint(canvas);
}

/** A rounded rectangle, painted now (see roundedRectPaint). */
export function fillRoundedRect(
  canvas: Canvas, x: number, y: number, width: number, height: number, radius: number, color: Rgb, opacity = 1,
): void {
  roundedRectPaint(canvas, x, y, width, height, radius, color, opacity).paint(canvas);
}

/** A disc, painted now (see circlePaint). */
export function fillCircle(canvas: Canvas, cx: number, cy: number, r: number, color: Rgb, opacity = 1): void {
  circlePaint(canvas, cx, cy, r, color, opacity).paint(canvas);
}

/** A line, painted now (see linePaint). */
export function strokeLine(
  canvas: Canvas, x1: number, y1: number, x2: number, y2: number, width: number, color: Rgb, opacity = 1,
): void {
  linePaint(canvas, x1, y1, x2, y2, width, color, opacity).paint(canvas);
}

/** Rasterises a path clipped to the canvas and composites it band by band, now. */
export function fillPath(canvas: Canvas, path: PathBuilder, color: Rgb, opacity = 1): void {
  pathPaint(canvas, path, color, opacity).paint(canvas);
}

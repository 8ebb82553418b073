/**
 * TrueType points -> an outline of moves, lines and quadratic curves (the shape stb_truetype
 * calls "vertices"). Two consecutive off-curve points imply an on-curve point midway between
 * them (TrueType reference manual, "Digitizing Letterform Designs").
 */
import type { GlyphPoints } from './glyf.js';

/** One step of an outline, in font units with y up. Each `move` starts a closed contour. */
export type OutlineCommand =
  | { readonly type: 'move'; readonly x: number; readonly y: number }
  | { readonly type: 'line'; readonly x: number; readonly y: number }
  | { readonly type: 'quad'; readonly cx: number; readonly cy: number; readonly x: number; readonly y: number };

/** Converts each contour into a move followed by lines and curves back to its start point. */
export function pointsToOutline(points: GlyphPoints): OutlineCommand[] {
  const out: OutlineCommand[] = [];
  const { xs, ys, onCurve, contourEnds } = points;
  let first = 0;
  for (const last of contourEnds) {
    if (last >= first) addContour(out, xs, ys, onCurve, first, last);
    first = last + 1;
  }
  return out;
}

function addContour(
  out: OutlineCommand[], xs: Float64Array, ys: Float64Array, on: Uint8Array, first: number, last: number,
): void {
  // Start on an on-curve point: the first one, else the last one, else the midpoint of the two;
  // then visit the other points in order [from, to] and close back to the start.
  let startX: number;
  let startY: number;
  let from = first;
  let to = last;
  if (on[first]) {
    startX = xs[first]!;
    startY = ys[first]!;
    from = first + 1;
  } else if (on[last]) {
    startX = xs[last]!;
    startY = ys[last]!;
    to = last - 1;
  } else {
    startX = (xs[first]! + xs[last]!) / 2;
    startY = (ys[first]! + ys[last]!) / 2;
  }
  out.push({ type: 'move', x: startX, y: startY });

  let pendingOff = false;
  let cx = 0;
  let cy = 0;
  for (let i = from; i <= to; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (on[i]) {
      out.push(pendingOff ? { type: 'quad', cx, cy, x, y } : { type: 'line', x, y });
      pendingOff = false;
    } else {
      if (pendingOff) out.push({ type: 'quad', cx, cy, x: (cx + x) / 2, y: (cy + y) / 2 });
      cx = x;
      cy = y;
      pendingOff = true;
    }
  }
  out.push(pendingOff ? { type: 'quad', cx, cy, x: startX, y: startY } : { type: 'line', x: startX, y: startY });
}

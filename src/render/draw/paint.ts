/**
 * Drawing as a list of paints, each made once and then painted into any band of rows: the
 * poster renderer paints the band the JPEG encoder asks for next, so no whole canvas of pixels
 * (8 MiB for a poster) ever exists. Painting every band in turn gives the bytes of painting the
 * whole picture at once: each paint changes a pixel the same way whichever band holds it.
 */
import type { Canvas } from './canvas.js';

/** Something drawn on a picture, paintable a band of rows at a time. */
export interface Paint {
  /** The first row it may change. */
  readonly top: number;
  /** The row after the last one it may change. */
  readonly bottom: number;
  /** Paints its part within the rows the canvas holds. */
  paint(canvas: Canvas): void;
}

/** A paint that changes nothing (an empty rectangle, a zero radius). */
export const NOTHING: Paint = Object.freeze({ top: 0, bottom: 0, paint: () => undefined });

/** Paints, in order, those of `paints` that reach the rows the canvas holds. */
export function paintAll(canvas: Canvas, paints: readonly Paint[]): void {
  const { top, bottom } = canvas;
  for (const p of paints) {
    if (p.bottom > top && p.top < bottom) p.paint(canvas);
  }
}

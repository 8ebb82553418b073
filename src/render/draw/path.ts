/**
 * Paths as the rasteriser wants them: closed polygons stored as a flat list of edges, with
 * quadratic curves and circular arcs flattened to within a tolerance in pixels.
 */

/** Maximum distance, in pixels, between a curve and its flattened polygon. */
export const FLATTEN_TOLERANCE = 0.03;

/** Builds a set of closed contours as edges (x0, y0, x1, y1), in pixel coordinates, y down. */
export class PathBuilder {
  #edges = new Float64Array(256);
  #length = 0;
  #startX = 0;
  #startY = 0;
  #x = 0;
  #y = 0;
  #open = false;
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;

  /** Number of edges so far. */
  get edgeCount(): number {
    return this.#length >> 2;
  }

  /** The edges so far, four numbers each. */
  edges(): Float64Array {
    return this.#edges.subarray(0, this.#length);
  }

  /** Starts a new contour (closing the current one). */
  moveTo(x: number, y: number): this {
    this.close();
    this.#startX = this.#x = x;
    this.#startY = this.#y = y;
    this.#open = true;
    this.#extend(x, y);
    return this;
  }

  lineTo(x: number, y: number): this {
    if (!this.#open) throw new TypeError('lineTo before moveTo');
    if (y !== this.#y) this.#push(this.#x, this.#y, x, y); // horizontal edges add no coverage
    this.#x = x;
    this.#y = y;
    this.#extend(x, y);
    return this;
  }

  /**
   * A quadratic Bézier to (x, y) with control (cx, cy). Split into n equal steps of t: the
   * distance from the chord of each step is at most |p0 - 2 p1 + p2| / (4 n²).
   */
  quadTo(cx: number, cy: number, x: number, y: number): this {
    const x0 = this.#x;
    const y0 = this.#y;
    const ddx = x0 - 2 * cx + x;
    const ddy = y0 - 2 * cy + y;
    const n = Math.max(1, Math.ceil(Math.sqrt(Math.hypot(ddx, ddy) / (4 * FLATTEN_TOLERANCE))));
    for (let i = 1; i < n; i++) {
      const t = i / n;
      const u = 1 - t;
      this.lineTo(u * u * x0 + 2 * u * t * cx + t * t * x, u * u * y0 + 2 * u * t * cy + t * t * y);
    }
    return this.lineTo(x, y);
  }

  /**
   * A circular arc around (cx, cy) from angle a0 to a1 (radians, y down so positive is
   * clockwise on screen), starting with a line to its first point. The vertices sit on a
   * radius R slightly above r, chosen so the polygon has the arc's exact area (each chord's
   * triangle R² sin φ / 2 equals the sector r² φ / 2); R − r is 2/3 of the sagitta, within the
   * tolerance.
   */
  arc(cx: number, cy: number, r: number, a0: number, a1: number): this {
    const n = arcSegments(r, Math.abs(a1 - a0));
    const phi = Math.abs(a1 - a0) / n;
    const radius = phi > 0 ? r * Math.sqrt(phi / Math.sin(phi)) : r;
    for (let i = 0; i <= n; i++) {
      const a = a0 + ((a1 - a0) * i) / n;
      const x = cx + radius * Math.cos(a);
      const y = cy + radius * Math.sin(a);
      if (i === 0 && !this.#open) this.moveTo(x, y);
      else this.lineTo(x, y);
    }
    return this;
  }

  /** Closes the current contour with a line back to its start. */
  close(): this {
    if (this.#open) {
      this.lineTo(this.#startX, this.#startY);
      this.#open = false;
    }
    return this;
  }

  #push(x0: number, y0: number, x1: number, y1: number): void {
    if (this.#length + 4 > this.#edges.length) {
      const grown = new Float64Array(this.#edges.length * 2);
      grown.set(this.#edges);
      this.#edges = grown;
    }
    const e = this.#edges;
    e[this.#length++] = x0;
    e[this.#length++] = y0;
    e[this.#length++] = x1;
    e[this.#length++] = y1;
  }

  #extend(x: number, y: number): void {
    if (x < this.minX) this.minX = x;
    if (x > this.maxX) this.maxX = x;
    if (y < this.minY) this.minY = y;
    if (y > this.maxY) this.maxY = y;
  }
}

/** Segments for an arc of `sweep` radians whose chords stay within the tolerance (sagitta). */
export function arcSegments(r: number, sweep: number): number {
  if (r <= FLATTEN_TOLERANCE) return Math.max(1, Math.ceil(sweep / (Math.PI / 2)));
  const step = 2 * Math.acos(1 - FLATTEN_TOLERANCE / r);
  return Math.min(4096, Math.max(2, Math.ceil(sweep / step)));
}

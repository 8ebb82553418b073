/**
 * `loca` + `glyf`: glyph outlines as TrueType stores them, contours of on- and off-curve points
 * in font units (TrueType reference manual, 'glyf' and 'loca'). Composite glyphs are resolved
 * into the points of their components, transformed and offset.
 */
import { FontFormatError, type TableReader } from './sfnt.js';

/** One glyph's contours: point coordinates (font units, y up) and on-curve flags. */
export interface GlyphPoints {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  readonly onCurve: Uint8Array;
  /** Index of the last point of each contour. */
  readonly contourEnds: readonly number[];
}

/** How a glyph is stored: an empty glyph, simple contours, or components. */
export interface GlyphHeader {
  /** -1 for a composite, 0 for an empty glyph (space), else the number of contours. */
  readonly numberOfContours: number;
  /** Glyph indices of the direct components of a composite glyph. */
  readonly components: readonly number[];
}

// Simple glyph flags (TrueType 'glyf', "Simple glyph description").
const ON_CURVE = 0x01;
const X_SHORT = 0x02;
const Y_SHORT = 0x04;
const REPEAT = 0x08;
const X_SAME_OR_POSITIVE = 0x10;
const Y_SAME_OR_POSITIVE = 0x20;

// Composite glyph flags (TrueType 'glyf', "Compound glyph description").
const ARG_1_AND_2_ARE_WORDS = 0x0001;
const ARGS_ARE_XY_VALUES = 0x0002;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;
const SCALED_COMPONENT_OFFSET = 0x0800;

/** Composites nest (DejaVu's `ŉ` uses `ʼ`, itself a composite); deeper than this is a loop. */
const MAX_COMPONENT_DEPTH = 8;

const EMPTY: Readonly<GlyphPoints> = { xs: new Float64Array(0), ys: new Float64Array(0), onCurve: new Uint8Array(0), contourEnds: [] };

/** Reads glyph outlines by index; `loca` gives each glyph's byte range in `glyf`. */
export class GlyphTable {
  readonly #glyf: TableReader;
  readonly #offsets: Uint32Array;
  readonly numGlyphs: number;

  constructor(glyf: TableReader, loca: TableReader, indexToLocFormat: 0 | 1, numGlyphs: number) {
    this.#glyf = glyf;
    this.numGlyphs = numGlyphs;
    this.#offsets = new Uint32Array(numGlyphs + 1);
    for (let i = 0; i <= numGlyphs; i++) {
      this.#offsets[i] = indexToLocFormat === 0 ? loca.uint16(i * 2) * 2 : loca.uint32(i * 4);
    }
  }

  /** The glyph's storage kind and, for a composite, its components. */
  header(glyphIndex: number): GlyphHeader {
    const start = this.#range(glyphIndex);
    if (start === undefined) return { numberOfContours: 0, components: [] };
    const numberOfContours = this.#glyf.int16(start);
    const components: number[] = [];
    if (numberOfContours < 0) this.#eachComponent(start, (c) => components.push(c.glyphIndex));
    return { numberOfContours, components };
  }

  /** The glyph's points, composites resolved; an empty glyph has no contours. */
  points(glyphIndex: number, depth = 0): GlyphPoints {
    if (depth > MAX_COMPONENT_DEPTH) throw new FontFormatError(`composite glyphs nest deeper than ${MAX_COMPONENT_DEPTH}`);
    const start = this.#range(glyphIndex);
    if (start === undefined) return EMPTY;
    const numberOfContours = this.#glyf.int16(start);
    return numberOfContours >= 0 ? this.#simple(start, numberOfContours) : this.#composite(start, depth);
  }

  /** Byte offset of the glyph in `glyf`, or undefined for an empty glyph. */
  #range(glyphIndex: number): number | undefined {
    if (!Number.isInteger(glyphIndex) || glyphIndex < 0 || glyphIndex >= this.numGlyphs) {
      throw new TypeError(`glyph index ${glyphIndex} is outside 0..${this.numGlyphs - 1}`);
    }
    // In range: the index was checked above and 'loca' has numGlyphs + 1 entries.
    const start = this.#offsets[glyphIndex]!;
    const end = this.#offsets[glyphIndex + 1]!;
    if (end < start) throw new FontFormatError(`'loca' entries of glyph ${glyphIndex} are out of order`);
    return end === start ? undefined : start;
  }

  #simple(start: number, numberOfContours: number): GlyphPoints {
    const g = this.#glyf;
    const contourEnds: number[] = [];
    for (let i = 0; i < numberOfContours; i++) contourEnds.push(g.uint16(start + 10 + i * 2));
    const numPoints = numberOfContours === 0 ? 0 : contourEnds[numberOfContours - 1]! + 1;
    const instructionLength = g.uint16(start + 10 + numberOfContours * 2);
    let at = start + 12 + numberOfContours * 2 + instructionLength;

    const flags = new Uint8Array(numPoints);
    for (let i = 0; i < numPoints; ) {
      const flag = g.uint8(at++);
      flags[i++] = flag;
      if (flag & REPEAT) {
        for (let n = g.uint8(at++); n > 0 && i < numPoints; n--) flags[i++] = flag;
      }
    }
    const xs = new Float64Array(numPoints);
    const ys = new Float64Array(numPoints);
    at = readCoordinates(g, at, flags, X_SHORT, X_SAME_OR_POSITIVE, xs);
    readCoordinates(g, at, flags, Y_SHORT, Y_SAME_OR_POSITIVE, ys);
    const onCurve = new Uint8Array(numPoints);
    for (let i = 0; i < numPoints; i++) onCurve[i] = flags[i]! & ON_CURVE;
    return { xs, ys, onCurve, contourEnds };
  }

  #composite(start: number, depth: number): GlyphPoints {
    const xs: number[] = [];
    const ys: number[] = [];
    const onCurve: number[] = [];
    const contourEnds: number[] = [];
    this.#eachComponent(start, (c) => {
      const part = this.points(c.glyphIndex, depth + 1);
      const [a, b, cc, d] = c.matrix;
      let dx: number;
      let dy: number;
      if (c.xyValues) {
        // Offsets are in the parent's space unless SCALED_COMPONENT_OFFSET says to transform them.
        dx = c.scaledOffset ? a * c.arg1 + cc * c.arg2 : c.arg1;
        dy = c.scaledOffset ? b * c.arg1 + d * c.arg2 : c.arg2;
      } else {
        // Point matching: the component's point arg2 lands on the parent's point arg1.
        if (c.arg1 >= xs.length || c.arg2 >= part.xs.length) throw new FontFormatError('composite anchor point out of range');
        const px = part.xs[c.arg2]!, py = part.ys[c.arg2]!;
        dx = xs[c.arg1]! - (a * px + cc * py);
        dy = ys[c.arg1]! - (b * px + d * py);
      }
      const base = xs.length;
      for (let i = 0; i < part.xs.length; i++) {
        const px = part.xs[i]!, py = part.ys[i]!;
        xs.push(a * px + cc * py + dx);
        ys.push(b * px + d * py + dy);
        onCurve.push(part.onCurve[i]!);
      }
      for (const end of part.contourEnds) contourEnds.push(base + end);
    });
    return { xs: Float64Array.from(xs), ys: Float64Array.from(ys), onCurve: Uint8Array.from(onCurve), contourEnds };
  }

  #eachComponent(start: number, visit: (component: Component) => void): void {
    const g = this.#glyf;
    let at = start + 10;
    let flags: number;
    do {
      flags = g.uint16(at);
      const glyphIndex = g.uint16(at + 2);
      at += 4;
      const words = (flags & ARG_1_AND_2_ARE_WORDS) !== 0;
      const xyValues = (flags & ARGS_ARE_XY_VALUES) !== 0;
      let arg1: number;
      let arg2: number;
      if (words) {
        arg1 = xyValues ? g.int16(at) : g.uint16(at);
        arg2 = xyValues ? g.int16(at + 2) : g.uint16(at + 2);
        at += 4;
      } else {
        arg1 = xyValues ? g.int8(at) : g.uint8(at);
        arg2 = xyValues ? g.int8(at + 1) : g.uint8(at + 1);
        at += 2;
      }
      // [a b c d] maps (x, y) to (a x + c y, b x + d y).
      let matrix: [number, number, number, number] = [1, 0, 0, 1];
      if (flags & WE_HAVE_A_SCALE) {
        const s = g.f2dot14(at);
        matrix = [s, 0, 0, s];
        at += 2;
      } else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) {
        matrix = [g.f2dot14(at), 0, 0, g.f2dot14(at + 2)];
        at += 4;
      } else if (flags & WE_HAVE_A_TWO_BY_TWO) {
        matrix = [g.f2dot14(at), g.f2dot14(at + 2), g.f2dot14(at + 4), g.f2dot14(at + 6)];
        at += 8;
      }
      visit({ glyphIndex, arg1, arg2, xyValues, matrix, scaledOffset: (flags & SCALED_COMPONENT_OFFSET) !== 0 });
    } while (flags & MORE_COMPONENTS);
  }
}

interface Component {
  readonly glyphIndex: number;
  readonly arg1: number;
  readonly arg2: number;
  readonly xyValues: boolean;
  readonly matrix: readonly [number, number, number, number];
  readonly scaledOffset: boolean;
}

/** Delta-decoded coordinates: a 1-byte magnitude with a sign flag, or "same as previous", or an int16. */
function readCoordinates(
  g: TableReader, at: number, flags: Uint8Array, shortBit: number, sameOrPositiveBit: number, out: Float64Array,
): number {
  let value = 0;
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    if (flag & shortBit) {
      const delta = g.uint8(at++);
      value += flag & sameOrPositiveBit ? delta : -delta;
    } else if (!(flag & sameOrPositiveBit)) {
      value += g.int16(at);
      at += 2;
    }
    out[i] = value;
  }
  return at;
}

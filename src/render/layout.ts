/**
 * Text layout in font units: code points -> glyphs (missing ones become `.notdef`) with advances
 * and `kern` pairs, greedy word wrap to a width, and the largest size that fits a text in a
 * number of lines. Everything scales linearly with the font size, so wrapping at size s to a
 * width w is wrapping at 1 em to w / s.
 */
import type { Font } from './font/font.js';

/** One line: glyph indices and their pen positions (font units from the line's start). */
export interface LaidOutLine {
  readonly glyphs: readonly number[];
  readonly positions: readonly number[];
  /** Ink-independent width: the last glyph's position plus its advance, font units. */
  readonly width: number;
}

/** A wrapped text; `brokeWords` tells whether a word wider than the width had to be split. */
export interface WrappedText {
  readonly lines: readonly LaidOutLine[];
  readonly brokeWords: boolean;
}

/** A paragraph shaped in one run: glyphs, which of them are breakable spaces, pen positions. */
export interface ShapedRun {
  readonly glyphs: readonly number[];
  readonly spaces: readonly boolean[];
  /** positions[i] = sum of advances and kerning before glyph i; positions[n] = run width. */
  readonly positions: readonly number[];
  readonly advances: readonly number[];
}

/** Breakable spaces: tab, space, U+2000..U+200A, U+3000; U+00A0 (no-break space) deliberately is not one. */
function isBreakableSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || (c >= 0x2000 && c <= 0x200a) || c === 0x3000;
}

/** Code points, NFC-composed so `n` + U+0303 is drawn as the font's own `ñ`. */
export function codePoints(text: string): number[] {
  return Array.from(text.normalize('NFC'), (c) => c.codePointAt(0)!);
}

function shapeRun(font: Font, text: string): ShapedRun {
  const points = codePoints(text);
  const n = points.length;
  const glyphs: number[] = [];
  const spaces: boolean[] = [];
  const advances: number[] = [];
  for (const c of points) {
    const space = isBreakableSpace(c);
    const glyph = font.glyphIndex(space ? 0x20 : c);
    glyphs.push(glyph);
    spaces.push(space);
    advances.push(font.advanceWidth(glyph));
  }
  const positions = [0];
  for (let i = 0; i < n; i++) {
    const kern = i + 1 < n ? font.kerning(glyphs[i]!, glyphs[i + 1]!) : 0;
    positions.push(positions[i]! + advances[i]! + kern);
  }
  return { glyphs, spaces, positions, advances };
}

/**
 * A text shaped once, paragraph by paragraph, to be wrapped at any number of widths: shaping
 * (code points, glyphs, advances, kerning) does not depend on the width, and fitting a text
 * tries a dozen of them.
 */
export interface ShapedText {
  readonly unitsPerEm: number;
  readonly paragraphs: readonly ShapedRun[];
}

/** Shapes each `\n`-separated paragraph of `text`. */
export function shapeText(font: Font, text: string): ShapedText {
  return { unitsPerEm: font.unitsPerEm, paragraphs: text.split('\n').map((paragraph) => shapeRun(font, paragraph)) };
}

/** Width in font units of glyphs [start, end) of a run, kerning inside the range included. */
function rangeWidth(run: ShapedRun, start: number, end: number): number {
  return end <= start ? 0 : run.positions[end - 1]! - run.positions[start]! + run.advances[end - 1]!;
}

function lineOf(run: ShapedRun, start: number, end: number): LaidOutLine {
  const glyphs = run.glyphs.slice(start, end);
  const origin = run.positions[start]!;
  const positions = run.positions.slice(start, end).map((p) => p - origin);
  return { glyphs, positions, width: rangeWidth(run, start, end) };
}

/** Shapes one line of text without wrapping. */
export function shapeLine(font: Font, text: string): LaidOutLine {
  const run = shapeRun(font, text);
  return lineOf(run, 0, run.glyphs.length);
}

/** How `wrapText` breaks lines. */
export interface WrapOptions {
  /**
   * Even out line lengths: each paragraph gets the narrowest width that still wraps it into as
   * many lines as the full width does, so a centred block has no lone last word.
   */
  readonly balance?: boolean;
}

/**
 * Greedy word wrap: each `\n` starts a paragraph; lines break at spaces (which are dropped at
 * the break); a word wider than `maxWidth` (font units) is split between glyphs. An empty
 * paragraph is an empty line.
 */
export function wrapText(font: Font, text: string, maxWidth: number, options: WrapOptions = {}): WrappedText {
  return wrapShaped(shapeText(font, text), maxWidth, options);
}

/** `wrapText` of a text shaped beforehand. */
export function wrapShaped(text: ShapedText, maxWidth: number, options: WrapOptions = {}): WrappedText {
  const lines: LaidOutLine[] = [];
  let brokeWords = false;
  for (const run of text.paragraphs) {
    let breaks = breakRun(run, maxWidth);
    if (options.balance && breaks.ranges.length > 1 && !breaks.brokeWords) breaks = balanceRun(run, maxWidth, breaks.ranges.length);
    brokeWords ||= breaks.brokeWords;
    for (const [start, end] of breaks.ranges) lines.push(lineOf(run, start, end));
  }
  return { lines, brokeWords };
}

/** Greedy line ranges [start, end) of glyphs for one paragraph. */
function breakRun(run: ShapedRun, maxWidth: number): { ranges: Array<[number, number]>; brokeWords: boolean } {
  const n = run.glyphs.length;
  const ranges: Array<[number, number]> = [];
  let brokeWords = false;
  let start = skipSpaces(run, 0);
  if (start === n) ranges.push([n, n]);
  while (start < n) {
    // Extend word by word while the line still fits.
    let end = wordEnd(run, start);
    if (rangeWidth(run, start, end) > maxWidth) {
      end = splitPoint(run, start, end, maxWidth);
      brokeWords = true;
    } else {
      for (;;) {
        const nextWord = skipSpaces(run, end);
        if (nextWord === n) break; // trailing spaces stay off the line
        const next = wordEnd(run, nextWord);
        if (rangeWidth(run, start, next) > maxWidth) break;
        end = next;
      }
    }
    ranges.push([start, end]);
    start = skipSpaces(run, end);
  }
  return { ranges, brokeWords };
}

/** The greedy breaks at the narrowest width (to a font unit) that keeps `lineCount` lines. */
function balanceRun(run: ShapedRun, maxWidth: number, lineCount: number): { ranges: Array<[number, number]>; brokeWords: boolean } {
  let lo = 0;
  let hi = maxWidth;
  let best = breakRun(run, maxWidth);
  while (hi - lo > 1) {
    const mid = (lo + hi) / 2;
    const breaks = breakRun(run, mid);
    if (breaks.ranges.length <= lineCount && !breaks.brokeWords) {
      best = breaks;
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return best;
}

function skipSpaces(run: ShapedRun, i: number): number {
  while (i < run.glyphs.length && run.spaces[i]) i++;
  return i;
}

function wordEnd(run: ShapedRun, i: number): number {
  while (i < run.glyphs.length && !run.spaces[i]) i++;
  return i;
}

/** The most glyphs of [start, end) that fit in maxWidth, at least one. */
function splitPoint(run: ShapedRun, start: number, end: number, maxWidth: number): number {
  let split = start + 1;
  while (split < end && rangeWidth(run, start, split + 1) <= maxWidth) split++;
  return split;
}

/** The horizontal ellipsis, or three full stops when the font lacks it. */
const ELLIPSIS = 0x2026;

/**
 * Keeps the first `maxLines` lines; when some are dropped the last kept one ends in `…`, with
 * glyphs taken off its end until it fits `maxWidth` (font units).
 */
export function truncateLines(font: Font, lines: readonly LaidOutLine[], maxLines: number, maxWidth: number): LaidOutLine[] {
  if (lines.length <= maxLines) return [...lines];
  if (maxLines <= 0) return [];
  const kept = lines.slice(0, maxLines);
  const last = kept[maxLines - 1]!; // 0 < maxLines < lines.length
  const ellipsis = font.glyphIndex(ELLIPSIS) !== 0 ? shapeLine(font, '\u2026') : shapeLine(font, '...');
  let count = last.glyphs.length;
  const space = font.glyphIndex(0x20);
  const widthOf = (n: number) => (n === 0 ? 0 : last.positions[n - 1]! + font.advanceWidth(last.glyphs[n - 1]!));
  while (count > 0 && (widthOf(count) + ellipsis.width > maxWidth || last.glyphs[count - 1] === space)) count--;
  const start = widthOf(count);
  kept[maxLines - 1] = {
    glyphs: [...last.glyphs.slice(0, count), ...ellipsis.glyphs],
    positions: [...last.positions.slice(0, count), ...ellipsis.positions.map((p) => p + start)],
    width: start + ellipsis.width,
  };
  return kept;
}

/** What `fitText` looks for. */
export interface FitOptions {
  /** Width available, pixels. */
  readonly maxWidth: number;
  /** Most lines allowed. */
  readonly maxLines: number;
  /** Font sizes (pixels per em) to choose from, integers. */
  readonly minSize: number;
  readonly maxSize: number;
  /** Balance the lines of the result (see `WrapOptions`). */
  readonly balance?: boolean;
}

/** A size chosen for a text and its lines at that size. */
export interface FittedText extends WrappedText {
  readonly size: number;
  /** False when even `minSize` needs more lines than allowed or splits words. */
  readonly fits: boolean;
}

/**
 * The largest integer size in [minSize, maxSize] at which the text wraps into at most
 * `maxLines` lines without splitting a word; `minSize` (fits: false) when none does. The line
 * count only grows with the size, so a binary search finds it.
 */
export function fitText(font: Font, text: string, options: FitOptions): FittedText {
  return fitShaped(shapeText(font, text), options);
}

/** `fitText` of a text shaped beforehand: every size tried wraps the same shaping. */
export function fitShaped(text: ShapedText, options: FitOptions): FittedText {
  const { maxWidth, maxLines, minSize, maxSize } = options;
  const wrapAt = (size: number) => wrapShaped(text, (maxWidth * text.unitsPerEm) / size);
  const fitsAt = (wrapped: WrappedText) => wrapped.lines.length <= maxLines && !wrapped.brokeWords;
  let lo = Math.ceil(minSize);
  let hi = Math.floor(maxSize);
  if (hi < lo) throw new TypeError(`fitText: maxSize ${maxSize} is below minSize ${minSize}`);
  const smallest = wrapAt(lo);
  if (!fitsAt(smallest)) return { ...smallest, size: lo, fits: false };
  let best = { size: lo, wrapped: smallest };
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    const wrapped = wrapAt(mid);
    if (fitsAt(wrapped)) {
      best = { size: mid, wrapped };
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const lines = options.balance ? wrapShaped(text, (maxWidth * text.unitsPerEm) / best.size, { balance: true }) : best.wrapped;
  return { ...lines, size: best.size, fits: true };
}

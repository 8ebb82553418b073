/**
 * The poster's design: where the title, subtitle and body go, at what sizes, and what is drawn
 * under them. Planning is pure (spec + fonts -> positions); drawing applies a plan to a canvas.
 *
 *   ┌────────────────────────┐  background gradient, then the spec's shapes
 *   │        ▬▬▬             │  accent bar
 *   │   TITLE, bold, fitted  │  largest size that fits in 4 lines
 *   │   subtitle, accent     │
 *   │   body, muted          │  shrinks, then ends in "…", to stay inside the margins
 *   └────────────────────────┘
 */
import { Canvas } from './draw/canvas.js';
import { parseHexColor, type Rgb } from './draw/color.js';
import { fillLinearGradient } from './draw/gradient.js';
import { paintAll, type Paint } from './draw/paint.js';
import { circlePaint, linePaint, rectPaint, roundedRectPaint } from './draw/shapes.js';
import { GlyphCache, textLinePaint } from './draw/text.js';
import type { Font } from './font/font.js';
import { fitShaped, fitText, shapeText, truncateLines, wrapShaped, type FittedText, type LaidOutLine } from './layout.js';
import type { PosterSpec, Shape } from './spec.js';
import { unreachable } from '../util/unreachable.js';

export const POSTER_WIDTH = 1125;
export const POSTER_HEIGHT = 2436;
const POSTER_SIZE = { width: POSTER_WIDTH, height: POSTER_HEIGHT } as const;

/** The faces the design uses. */
export interface PosterFonts {
  readonly regular: Font;
  readonly bold: Font;
}

const MARGIN_X = 100;
const SAFE_TOP = 200;
const SAFE_BOTTOM = 200;
const CONTENT_WIDTH = POSTER_WIDTH - 2 * MARGIN_X;
const BAR = { width: 132, height: 14, gapBelow: 64 } as const;
const TITLE = { minSize: 64, maxSize: 196, maxLines: 4, lineHeight: 1.08, balance: true } as const;
/** When the title needs more than 4 lines at 64 px, or has a word too long for a line. */
const LONG_TITLE = { minSize: 36, maxSize: 64, maxLines: 8, balance: true } as const;
const SUBTITLE = { minSize: 40, maxSize: 60, maxLines: 3, lineHeight: 1.28, gapAbove: 52, balance: true } as const;
const BODY = { minSize: 30, maxSize: 42, lineHeight: 1.5, gapAbove: 88, opacity: 0.84 } as const;
// Above the baseline a line reaches about the cap height and accents (DejaVu: 1493 and ~1638
// of 2048 units); below it, descenders (483 of 2048). Used to size blocks by their ink.
const ASCENT_EM = 0.76;
const DESCENT_EM = 0.24;
/** Where the text group sits in the free height: a little above centre (the optical centre). */
const VERTICAL_BIAS = 0.42;

/** A block of lines in one style, positioned. */
export interface TextBlock {
  readonly lines: readonly LaidOutLine[];
  readonly font: Font;
  readonly size: number;
  /** Distance between baselines, pixels. */
  readonly lineHeight: number;
  readonly firstBaseline: number;
  readonly color: Rgb;
  readonly opacity: number;
}

/** Everything the text layer draws. */
export interface TextPlan {
  readonly align: 'center' | 'left';
  readonly accentBar: { x: number; y: number; width: number; height: number; color: Rgb };
  readonly blocks: readonly TextBlock[];
}

/**
 * Paints the background gradient and the spec's shapes, in order, on a new canvas or on
 * `target`, a poster-sized canvas (or band) to reuse: the gradient overwrites every pixel it
 * holds, so nothing of an earlier poster shows through.
 */
export function drawBackground(spec: PosterSpec, target?: Canvas): Canvas {
  if (target !== undefined && (target.width !== POSTER_WIDTH || target.height !== POSTER_HEIGHT)) {
    throw new TypeError(`drawBackground needs a ${POSTER_WIDTH}x${POSTER_HEIGHT} canvas, got ${target.width}x${target.height}`);
  }
  const canvas = target ?? new Canvas(POSTER_WIDTH, POSTER_HEIGHT);
  paintAll(canvas, backgroundPaints(spec));
  return canvas;
}

/** What drawBackground paints: the gradient, which covers every pixel, then the shapes. */
export function backgroundPaints(spec: PosterSpec): Paint[] {
  const { from, to, angle } = spec.background;
  const gradient = { from: parseHexColor(from), to: parseHexColor(to) };
  return [
    { top: 0, bottom: POSTER_HEIGHT, paint: (canvas) => fillLinearGradient(canvas, gradient.from, gradient.to, angle) },
    ...spec.shapes.map(shapePaint),
  ];
}

function shapePaint(shape: Shape): Paint {
  const color = parseHexColor(shape.color);
  switch (shape.kind) {
    case 'rect':
      return shape.radius > 0
        ? roundedRectPaint(POSTER_SIZE, shape.x, shape.y, shape.width, shape.height, shape.radius, color, shape.opacity)
        : rectPaint(shape.x, shape.y, shape.width, shape.height, color, shape.opacity);
    case 'circle':
      return circlePaint(POSTER_SIZE, shape.cx, shape.cy, shape.r, color, shape.opacity);
    case 'line':
      return linePaint(POSTER_SIZE, shape.x1, shape.y1, shape.x2, shape.y2, shape.width, color, shape.opacity);
    default:
      return unreachable(shape);
  }
}

/** Block height by ink: first line's ascent, the line steps, the last line's descent. */
function blockHeight(lines: number, size: number, lineHeight: number): number {
  return lines === 0 ? 0 : size * (ASCENT_EM + DESCENT_EM) + (lines - 1) * size * lineHeight;
}

/** Lays out title, subtitle and body inside the safe area. */
export function planText(spec: PosterSpec, fonts: PosterFonts): TextPlan {
  const text = parseHexColor(spec.textColor);
  const accent = parseHexColor(spec.accentColor);
  const title = fitTitle(fonts.bold, spec.title);
  const subtitle = spec.subtitle === '' ? undefined : fitText(fonts.regular, spec.subtitle, { maxWidth: CONTENT_WIDTH, ...SUBTITLE });

  const fixedHeight =
    BAR.height + BAR.gapBelow + blockHeight(title.lines.length, title.size, TITLE.lineHeight) +
    (subtitle ? SUBTITLE.gapAbove + blockHeight(subtitle.lines.length, subtitle.size, SUBTITLE.lineHeight) : 0);
  const available = POSTER_HEIGHT - SAFE_TOP - SAFE_BOTTOM;
  const body = spec.body === '' ? undefined : planBody(fonts.regular, spec.body, available - fixedHeight - BODY.gapAbove, spec.align === 'center');
  const total = fixedHeight + (body ? BODY.gapAbove + blockHeight(body.lines.length, body.size, BODY.lineHeight) : 0);

  let y = SAFE_TOP + Math.max(0, available - total) * VERTICAL_BIAS;
  const barX = spec.align === 'center' ? (POSTER_WIDTH - BAR.width) / 2 : MARGIN_X;
  const accentBar = { x: barX, y: Math.round(y), width: BAR.width, height: BAR.height, color: accent };
  y += BAR.height + BAR.gapBelow;

  const blocks: TextBlock[] = [];
  const place = (lines: readonly LaidOutLine[], font: Font, size: number, lineHeight: number, color: Rgb, opacity: number) => {
    blocks.push({ lines, font, size, lineHeight: size * lineHeight, firstBaseline: y + size * ASCENT_EM, color, opacity });
    y += blockHeight(lines.length, size, lineHeight);
  };
  place(title.lines, fonts.bold, title.size, TITLE.lineHeight, text, 1);
  if (subtitle) {
    y += SUBTITLE.gapAbove;
    place(subtitle.lines, fonts.regular, subtitle.size, SUBTITLE.lineHeight, accent, 1);
  }
  if (body) {
    y += BODY.gapAbove;
    place(body.lines, fonts.regular, body.size, BODY.lineHeight, text, BODY.opacity);
  }
  return { align: spec.align, accentBar, blocks };
}

/** The largest title size in 4 lines; for long titles, smaller in up to 8 lines, words unbroken if possible. */
function fitTitle(font: Font, title: string): FittedText {
  const shaped = shapeText(font, title);
  const fitted = fitShaped(shaped, { maxWidth: CONTENT_WIDTH, ...TITLE });
  return fitted.fits ? fitted : fitShaped(shaped, { maxWidth: CONTENT_WIDTH, ...LONG_TITLE });
}

/**
 * The body at the largest size whose lines fit `height`; at the smallest size, cut with "…".
 * Centred paragraphs are balanced; left-aligned ones keep the usual ragged right.
 */
function planBody(font: Font, body: string, height: number, balance: boolean): { lines: LaidOutLine[]; size: number } {
  const shaped = shapeText(font, body);
  for (let size = BODY.maxSize; size >= BODY.minSize; size -= 2) {
    const maxWidth = (CONTENT_WIDTH * font.unitsPerEm) / size;
    const { lines } = wrapShaped(shaped, maxWidth, { balance });
    if (blockHeight(lines.length, size, BODY.lineHeight) <= height || size - 2 < BODY.minSize) {
      const fitting = Math.max(1, Math.floor((height - size * (ASCENT_EM + DESCENT_EM)) / (size * BODY.lineHeight)) + 1);
      return { lines: truncateLines(font, lines, fitting, maxWidth), size };
    }
  }
  throw new TypeError('unreachable: the smallest body size always returns');
}

/** Draws the accent bar and every text block of the plan. */
export function drawText(canvas: Canvas, plan: TextPlan, cache = new GlyphCache()): void {
  paintAll(canvas, textPaints(plan, cache));
}

/**
 * What drawText paints: the accent bar, then every line of every block, glyphs found in (or
 * added to) `cache`.
 */
export function textPaints(plan: TextPlan, cache: GlyphCache): Paint[] {
  const bar = plan.accentBar;
  const paints = [roundedRectPaint(POSTER_SIZE, bar.x, bar.y, bar.width, bar.height, bar.height / 2, bar.color)];
  for (const block of plan.blocks) {
    const scale = block.size / block.font.unitsPerEm;
    block.lines.forEach((line, i) => {
      const x = plan.align === 'center' ? (POSTER_WIDTH - line.width * scale) / 2 : MARGIN_X;
      paints.push(textLinePaint(line, x, block.firstBaseline + i * block.lineHeight, block, cache));
    });
  }
  return paints;
}

// The poster's design as plain data, for renderers other than ours: the same gradient, shapes,
// accent bar and text lines at the same sizes and places. Line breaks, font sizes and positions
// come from our own layout (planText), so every peer draws the very same lines; what differs
// between them is only how each rasterises, composites and encodes. Our code comes from the
// compiled dist/, the build the renderers' processes run.
import { planText, POSTER_HEIGHT, POSTER_WIDTH } from '../../dist/render/design.js';

/** Where left-aligned lines start (design.ts's margin). */
const LEFT_MARGIN = 100;

const hex = ({ r, g, b }) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/**
 * The design of `spec` (a normalised PosterSpec) drawn with `fonts` (our parsed faces), as JSON:
 * `{ width, height, quality, metrics, background: { from, to, angle }, shapes, accentBar, blocks }`, where
 * each block is `{ face: 'regular' | 'bold', size, color, opacity, lines: [{ text, x, baseline, width }] }`
 * with `x` the left end of the line's pen and `baseline` its baseline, in poster pixels.
 */
export function posterDesign(spec, fonts) {
  const plan = planText(spec, fonts);
  const bar = plan.accentBar;
  return {
    width: POSTER_WIDTH,
    height: POSTER_HEIGHT,
    quality: spec.quality,
    // hhea line metrics in ems, for renderers that place text by its line box rather than its baseline.
    metrics: Object.fromEntries(Object.entries(fonts).map(([face, font]) => [
      face, { ascender: font.ascender / font.unitsPerEm, descender: font.descender / font.unitsPerEm },
    ])),
    background: spec.background,
    shapes: spec.shapes,
    accentBar: { x: bar.x, y: bar.y, width: bar.width, height: bar.height, radius: bar.height / 2, color: hex(bar.color) },
    blocks: plan.blocks.map((block) => {
      const face = block.font === fonts.bold ? 'bold' : 'regular';
      const scale = block.size / block.font.unitsPerEm;
      const textOf = glyphText(block.font, [spec.title, spec.subtitle, spec.body, '\u2026...'].join(''));
      return {
        face,
        size: block.size,
        color: hex(block.color),
        opacity: block.opacity,
        lines: block.lines.map((line, i) => {
          const width = line.width * scale;
          return {
            text: line.glyphs.map(textOf).join(''),
            x: plan.align === 'center' ? (POSTER_WIDTH - width) / 2 : LEFT_MARGIN,
            baseline: block.firstBaseline + i * block.lineHeight,
            width,
          };
        }),
      };
    }),
  };
}

/** Glyph index -> the character it came from, over the characters of `text` (the layout keeps glyphs, not text). */
function glyphText(font, text) {
  const chars = new Map();
  for (const c of text.normalize('NFC')) {
    const glyph = font.glyphIndex(c.codePointAt(0));
    if (!chars.has(glyph)) chars.set(glyph, /\s/u.test(c) ? ' ' : c);
  }
  return (glyph) => {
    const c = chars.get(glyph);
    if (c === undefined) throw new Error(`glyph ${glyph} has no character in the spec's text`);
    return c;
  };
}

/**
 * The ends of a CSS `linear-gradient(<angle>deg)` line over a width x height box (CSS Images 3:
 * 0 = bottom to top, 90 = left to right), long enough for the corners to get the end colours,
 * as our gradient draws it.
 */
export function gradientLine(width, height, angleDegrees) {
  const radians = (angleDegrees * Math.PI) / 180;
  const dx = Math.sin(radians);
  const dy = -Math.cos(radians);
  const half = (Math.abs(width * dx) + Math.abs(height * dy)) / 2;
  return { x0: width / 2 - dx * half, y0: height / 2 - dy * half, x1: width / 2 + dx * half, y1: height / 2 + dy * half };
}

/** `#rrggbb` and an opacity as CSS `rgba()`. */
export function rgba(color, opacity = 1) {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(color.slice(i, i + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${opacity})`;
}

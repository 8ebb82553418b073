// satori + resvg, as a JSX-free element tree ({ type, props }): satori lays it out and turns the
// text into SVG paths with the shipped DejaVu data, @resvg/resvg-js rasterises the SVG to RGBA,
// and sharp encodes the pixels (neither satori nor resvg writes JPEG).
import { readFile } from 'node:fs/promises';
import { Resvg } from '@resvg/resvg-js';
import satori from 'satori';
import sharp from 'sharp';
import { rgba } from '../poster-design.mjs';

const FAMILY = 'Poster Sans';

const box = (style, children) => ({ type: 'div', props: { style: { position: 'absolute', ...style }, ...(children === undefined ? {} : { children }) } });

/** The design (see posterDesign) as a satori element tree. */
export function posterElement(design) {
  const { width, height, background } = design;
  const bar = design.accentBar;
  const shapes = design.shapes.map((shape) => {
    if (shape.kind === 'circle') {
      const { cx, cy, r } = shape;
      return box({ left: cx - r, top: cy - r, width: 2 * r, height: 2 * r, borderRadius: r, backgroundColor: rgba(shape.color, shape.opacity) });
    }
    if (shape.kind === 'rect') {
      return box({ left: shape.x, top: shape.y, width: shape.width, height: shape.height, borderRadius: shape.radius, backgroundColor: rgba(shape.color, shape.opacity) });
    }
    throw new Error('the satori design draws circles and rectangles, not lines');
  });
  const lines = design.blocks.flatMap((block) => {
    const { ascender, descender } = design.metrics[block.face];
    // A line box of one em: CSS puts the baseline half the leading plus the ascender below its top.
    const baselineInBox = (1 - (ascender - descender)) / 2 + ascender;
    return block.lines.map((line) => box({
      left: line.x,
      top: line.baseline - baselineInBox * block.size,
      fontFamily: FAMILY,
      fontWeight: block.face === 'bold' ? 700 : 400,
      fontSize: block.size,
      lineHeight: 1,
      whiteSpace: 'pre',
      fontVariantLigatures: 'none', // ours sets glyphs one per character: no "fi" ligature
      color: rgba(block.color, block.opacity),
    }, line.text));
  });
  return {
    type: 'div',
    props: {
      style: { display: 'flex', position: 'relative', width, height, backgroundImage: `linear-gradient(${background.angle}deg, ${background.from}, ${background.to})` },
      children: [
        ...shapes,
        box({ left: bar.x, top: bar.y, width: bar.width, height: bar.height, borderRadius: bar.radius, backgroundColor: bar.color }),
        ...lines,
      ],
    },
  };
}

/** A renderer of `input.design` with the faces at `input.fontFiles`; the element tree is built per poster. */
export async function createSatoriRenderer(input) {
  const { design, fontFiles } = input;
  const fonts = [
    { name: FAMILY, data: await readFile(fontFiles.regular), weight: 400, style: 'normal' },
    { name: FAMILY, data: await readFile(fontFiles.bold), weight: 700, style: 'normal' },
  ];
  const { width, height, quality } = design;
  const toSvg = () => satori(posterElement(design), { width, height, fonts });
  const toPixels = (svg) => new Resvg(svg, { font: { loadSystemFonts: false } }).render();
  // sharp's JPEG at `input.subsampling` (its default 4:2:0 unless '4:4:4' is asked for).
  const jpeg = { quality, chromaSubsampling: input.subsampling ?? '4:2:0' };
  const encode = (image) => sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: 4 } }).jpeg(jpeg).toBuffer();
  return {
    render: async () => encode(toPixels(await toSvg())),
    renderStages: async () => {
      const t0 = performance.now();
      const svg = await toSvg();
      const t1 = performance.now();
      const image = toPixels(svg);
      const t2 = performance.now();
      const bytes = await encode(image);
      return { bytes, layout: t1 - t0, raster: t2 - t1, encode: performance.now() - t2 };
    },
  };
}

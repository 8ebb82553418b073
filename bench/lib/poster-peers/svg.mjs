// sharp rendering an SVG (libvips -> librsvg, text through Pango and fontconfig): the design as
// one SVG document, then `sharp(svg).jpeg({ quality, chromaSubsampling })` (libjpeg-turbo; sharp's
// defaults otherwise: 4:2:0 unless `input.subsampling` says '4:4:4', Huffman tables optimised as ours are).
import sharp from 'sharp';
import { gradientLine } from '../poster-design.mjs';

/** The family the SVG's text asks fontconfig for: the shipped faces' own family name. */
const FAMILY = 'DejaVu Sans';

const escapeXml = (text) => text.replace(/[<>&"']/g, (c) => `&#${c.codePointAt(0)};`);

/** The design (see posterDesign) as an SVG document of the same size. */
export function posterSvg(design) {
  const { width, height, background } = design;
  const line = gradientLine(width, height, background.angle);
  const bar = design.accentBar;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<defs>',
    `<linearGradient id="bg" gradientUnits="userSpaceOnUse" x1="${line.x0}" y1="${line.y0}" x2="${line.x1}" y2="${line.y1}">`,
    `<stop offset="0" stop-color="${background.from}"/><stop offset="1" stop-color="${background.to}"/>`,
    '</linearGradient>',
    '</defs>',
    `<rect width="${width}" height="${height}" fill="url(#bg)"/>`,
    ...design.shapes.map(shapeSvg),
    `<rect x="${bar.x}" y="${bar.y}" width="${bar.width}" height="${bar.height}" rx="${bar.radius}" fill="${bar.color}"/>`,
    ...design.blocks.map((block) => [
      `<g font-family="${FAMILY}" font-size="${block.size}" font-weight="${block.face === 'bold' ? 'bold' : 'normal'}" fill="${block.color}" fill-opacity="${block.opacity}">`,
      ...block.lines.map((l) => `<text x="${l.x}" y="${l.baseline}" xml:space="preserve">${escapeXml(l.text)}</text>`),
      '</g>',
    ].join('')),
    '</svg>',
  ].join('\n');
}

function shapeSvg(shape) {
  const paint = `fill="${shape.color}" fill-opacity="${shape.opacity}"`;
  switch (shape.kind) {
    case 'circle':
      return `<circle cx="${shape.cx}" cy="${shape.cy}" r="${shape.r}" ${paint}/>`;
    case 'rect':
      return `<rect x="${shape.x}" y="${shape.y}" width="${shape.width}" height="${shape.height}" rx="${shape.radius}" ${paint}/>`;
    default:
      return `<line x1="${shape.x1}" y1="${shape.y1}" x2="${shape.x2}" y2="${shape.y2}" stroke="${shape.color}" stroke-width="${shape.width}" stroke-opacity="${shape.opacity}"/>`;
  }
}

/**
 * A renderer of `input.design`. librsvg finds the faces through fontconfig: the caller points
 * FONTCONFIG_FILE at a configuration listing the shipped font directory (see fontconfigFile).
 * The SVG is written per poster, as a service would from each spec.
 */
export async function createSvgRenderer(input) {
  const { design } = input;
  const jpeg = { quality: design.quality, chromaSubsampling: input.subsampling ?? '4:2:0' };
  return {
    render: () => sharp(Buffer.from(posterSvg(design))).jpeg(jpeg).toBuffer(),
  };
}

/** A fontconfig configuration that knows only the fonts in `fontDir`, caching under `cacheDir`. */
export function fontconfigFile(fontDir, cacheDir) {
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<fontconfig>',
    `  <dir>${escapeXml(fontDir)}</dir>`,
    `  <cachedir>${escapeXml(cacheDir)}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
}

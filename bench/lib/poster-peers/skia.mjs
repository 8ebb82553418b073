// Skia through @napi-rs/canvas: the design drawn with the 2D context API, the shipped DejaVu
// faces registered by path, `canvas.encode('jpeg', quality)` (asynchronous, off the main thread;
// libjpeg-turbo in Skia's defaults). @napi-rs/canvas exposes no chroma option for JPEG (its
// JpegEncodeOptions are quality and metadata; only AVIF takes chromaSubsampling): Skia encodes
// 4:2:0 whatever `input.subsampling` asks, and the table's chroma column says so.
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { gradientLine } from '../poster-design.mjs';

/**
 * A renderer of `input.design` (see posterDesign) with the faces at `input.fontFiles`
 * (`{ regular, bold }` paths). Like our worker it keeps one canvas across posters: the gradient
 * paints every pixel, so nothing of the previous poster shows through.
 */
export async function createSkiaRenderer(input) {
  const { design, fontFiles } = input;
  for (const path of [fontFiles.regular, fontFiles.bold]) {
    if (!GlobalFonts.registerFromPath(path, 'Poster Sans')) throw new Error(`Skia could not load ${path}`);
  }
  const canvas = createCanvas(design.width, design.height);
  const ctx = canvas.getContext('2d');
  const draw = () => drawBackground(ctx, design);
  const text = () => drawText(ctx, design);
  const encode = () => canvas.encode('jpeg', design.quality);
  // @napi-rs/canvas records drawing and plays it back when pixels are read: reading one pixel
  // makes each stage pay for its own drawing instead of leaving it all to the encode.
  const flush = () => ctx.getImageData(0, 0, 1, 1);
  return {
    render: async () => {
      draw();
      text();
      return encode();
    },
    renderStages: async () => {
      const t0 = performance.now();
      draw();
      flush();
      const t1 = performance.now();
      text();
      flush();
      const t2 = performance.now();
      const bytes = await encode();
      return { bytes, draw: t1 - t0, text: t2 - t1, encode: performance.now() - t2 };
    },
  };
}

function drawBackground(ctx, design) {
  const { width, height, background } = design;
  const line = gradientLine(width, height, background.angle);
  const gradient = ctx.createLinearGradient(line.x0, line.y0, line.x1, line.y1);
  gradient.addColorStop(0, background.from);
  gradient.addColorStop(1, background.to);
  ctx.globalAlpha = 1;
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, width, height);
  for (const shape of design.shapes) {
    ctx.globalAlpha = shape.opacity;
    ctx.fillStyle = shape.color;
    ctx.strokeStyle = shape.color;
    ctx.beginPath();
    if (shape.kind === 'circle') {
      ctx.arc(shape.cx, shape.cy, shape.r, 0, 2 * Math.PI);
      ctx.fill();
    } else if (shape.kind === 'rect') {
      ctx.roundRect(shape.x, shape.y, shape.width, shape.height, shape.radius);
      ctx.fill();
    } else {
      ctx.lineWidth = shape.width;
      ctx.moveTo(shape.x1, shape.y1);
      ctx.lineTo(shape.x2, shape.y2);
      ctx.stroke();
    }
  }
  ctx.globalAlpha = 1;
}

function drawText(ctx, design) {
  const bar = design.accentBar;
  ctx.fillStyle = bar.color;
  ctx.beginPath();
  ctx.roundRect(bar.x, bar.y, bar.width, bar.height, bar.radius);
  ctx.fill();
  ctx.textAlign = 'left';
  ctx.textBaseline = 'alphabetic';
  ctx.fontVariantLigatures = 'none'; // ours sets glyphs one per character: no "fi" ligature
  for (const block of design.blocks) {
    ctx.font = `${block.face === 'bold' ? 'bold ' : ''}${block.size}px "Poster Sans"`;
    ctx.fillStyle = block.color;
    ctx.globalAlpha = block.opacity;
    for (const line of block.lines) ctx.fillText(line.text, line.x, line.baseline);
  }
  ctx.globalAlpha = 1;
}

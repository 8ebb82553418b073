// Poster rendering benchmark: renderPoster for a typical spec, split into its stages
// (draw = background gradient and shapes, text = layout and glyphs, encode = our JPEG encoder),
// its peak memory, and the chroma subsampling trade-off on that poster.
//
//   cd bench && npm run bench:poster                 print the section
//   npm run bench:poster -- --write                  also update "## Posters" in RESULTS.md
//   npm run bench:poster -- --rounds 21              more rounds
import './lib/reference-node.mjs';
import { cpus, loadavg } from 'node:os';
import sharp from 'sharp';
import {
  drawPoster, encodePoster, POSTER_SUBSAMPLING, PosterRenderer,
} from '../src/render/poster.ts';
import { loadPosterFonts } from '../src/poster/fonts.ts';
import { checkPosterSpec as normalizePosterSpec } from '../src/poster/library.ts';
import { planText } from '../src/render/design.ts';
import { writeResultsSection } from './lib/results.mjs';
import { TYPICAL_POSTER_SPEC } from './lib/typical-poster.mjs';

const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 11;
const WARMUP = 3;

const SPEC = TYPICAL_POSTER_SPEC;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mib = (bytes) => bytes / (1024 * 1024);

async function timeRenders() {
  const fonts = await loadPosterFonts();
  const spec = normalizePosterSpec(SPEC);
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const rows = [];
  // As a render worker does: one renderer keeps its canvas and encoder buffers between posters.
  const renderer = new PosterRenderer();
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const { bytes, timings } = renderer.renderTimed(spec, fonts);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    if (i >= WARMUP) rows.push({ ...timings, total: timings.draw + timings.text + timings.encode, bytes: bytes.length });
  }
  return {
    draw: median(rows.map((r) => r.draw)),
    text: median(rows.map((r) => r.text)),
    encode: median(rows.map((r) => r.encode)),
    total: median(rows.map((r) => r.total)),
    bytes: rows[0].bytes,
    rssBefore: mib(rssBefore),
    rssPeak: mib(rssPeak),
    maxRss: process.resourceUsage().maxRSS / 1024,
  };
}

/** PSNR (dB) of decoded RGB against the drawn pixels over rows [y0, y1). */
function psnr(source, decoded, width, y0, y1) {
  let sum = 0;
  for (let i = y0 * width * 3; i < y1 * width * 3; i++) sum += (decoded[i] - source[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / ((y1 - y0) * width * 3)));
}

async function compareSubsampling() {
  const spec = normalizePosterSpec(SPEC);
  const fonts = await loadPosterFonts();
  const canvas = drawPoster(spec, fonts);
  const subtitle = planText(spec, fonts).blocks[1]; // the accent-coloured text
  const y0 = Math.floor(subtitle.firstBaseline - subtitle.size);
  const y1 = Math.ceil(subtitle.firstBaseline + (subtitle.lines.length - 1) * subtitle.lineHeight + subtitle.size * 0.3);
  // Round-robin, so drift in the machine's speed hits every setting alike.
  const settings = ['4:2:0', '4:2:2', '4:4:4'];
  const times = new Map(settings.map((s) => [s, []]));
  const jpegs = new Map();
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const subsampling of settings) {
      const t = performance.now();
      jpegs.set(subsampling, encodePoster(canvas, spec.quality, subsampling));
      if (round >= WARMUP) times.get(subsampling).push(performance.now() - t);
    }
  }
  const results = [];
  for (const subsampling of settings) {
    const jpeg = jpegs.get(subsampling);
    const decoded = await sharp(jpeg).raw().toBuffer();
    results.push({
      subsampling,
      bytes: jpeg.length,
      encode: median(times.get(subsampling)),
      all: psnr(canvas.data, decoded, canvas.width, 0, canvas.height),
      accent: psnr(canvas.data, decoded, canvas.width, y0, y1),
    });
  }
  return results;
}

function machine() {
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
}

function section(t, subsampling) {
  const f = (x) => x.toFixed(1);
  return [
    '## Posters',
    '',
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}; ` +
      `1-minute load average ${loadavg()[0].toFixed(1)} at the end (other work on the machine inflates every figure).`,
    'One process; one `PosterRenderer` (`renderTimed`) on a typical spec (Spanish/Catalan title, subtitle and three body lines, ' +
      `default gradient and shapes, quality 85, ${POSTER_SUBSAMPLING}), median of ${ROUNDS} renders after ${WARMUP} warm-up renders. ` +
      'Reproduce: `cd bench && npm run bench:poster`.',
    '',
    '| stage | ms (median) |',
    '|---|---:|',
    `| draw (gradient with dithering, shapes) | ${f(t.draw)} |`,
    `| text (layout, glyph rasterising, compositing) | ${f(t.text)} |`,
    `| encode (our baseline JPEG encoder) | ${f(t.encode)} |`,
    `| **total** | **${f(t.total)}** |`,
    '',
    `Poster size ${(t.bytes / 1024).toFixed(0)} KiB. Memory: RSS ${f(t.rssBefore)} MiB before the first render (fonts loaded), ` +
      `peak sampled RSS ${f(t.rssPeak)} MiB, \`resourceUsage().maxRSS\` ${f(t.maxRss)} MiB.`,
    '',
    'Chroma subsampling on the same poster at quality 85 (encode ms: median of round-robin rounds; PSNR over RGB against ' +
      'the drawn pixels, decoded with sharp; "accent text" is the rows of the accent-coloured subtitle):',
    '',
    '| subsampling | bytes | encode ms | PSNR all (dB) | PSNR accent text (dB) |',
    '|---|---:|---:|---:|---:|',
    ...subsampling.map((s) => `| ${s.subsampling} | ${s.bytes} | ${f(s.encode)} | ${f(s.all)} | ${f(s.accent)} |`),
    '',
  ].join('\n');
}


const timings = await timeRenders();
const subsampling = await compareSubsampling();
const text = section(timings, subsampling);
console.log(text);
if (args.includes('--write')) writeResultsSection('## Posters', text);

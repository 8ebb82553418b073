// JPEG encoder benchmark: our pure-TypeScript encoder against sharp (libvips
// with its bundled libjpeg, native) and jpeg-js (pure JavaScript), and
// libjpeg-turbo's own rate: cjpeg on the same pixels, its start and file
// handling taken out (lib/jpeg-cjpeg.mjs), the limit to aim at.
//
//   cd bench && npm install && npm run bench:jpeg            print the table
//   npm run bench:jpeg -- --write                            also update RESULTS.md
//   npm run bench:jpeg -- --rounds 21                        more rounds
//
// Every cell (image x quality) is timed round-robin: one encode per encoder
// per cell per round, the encoder order rotating between rounds, so slow
// drift of the machine's speed hits all encoders alike. Ratios are the
// median over rounds of the per-round ratio. cjpeg runs in each round after
// the in-process encoders; without cjpeg installed its columns say so.
import './lib/reference-node.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import sharp from 'sharp';
import jpegJs from 'jpeg-js';
import { JpegEncoder } from '../src/jpeg/encode.ts';
import { makeImage, IMAGE_KINDS } from '../test/jpeg/images.ts';
import { progress, writeResultsSection } from './lib/results.mjs';
import { cjpegTimer, cjpegVersion } from './lib/jpeg-cjpeg.mjs';

const WIDTH = 1125;
const HEIGHT = 2436;
const QUALITIES = [75, 85, 92];
/** Megapixels in one image, for the rates. */
const MEGAPIXELS = (WIDTH * HEIGHT) / 1e6;
const CJPEG = cjpegVersion();
const WARMUP_ROUNDS = 3;
const args = process.argv.slice(2);
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 11;

sharp.concurrency(1);
sharp.cache(false);

// One encoder for the run, as a render worker keeps one: its buffers serve every image.
const ourEncoder = new JpegEncoder();
const encoders = {
  ours: async (img, q) => ourEncoder.encode(img.rgb, { quality: q }),
  sharp: async (img, q) =>
    sharp(img.rgbBuffer, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: q }).toBuffer(),
  'jpeg-js': async (img, q) => jpegJs.encode({ data: img.rgba, width: WIDTH, height: HEIGHT }, q).data,
};
const names = Object.keys(encoders);

function prepare(kind) {
  const rgb = makeImage(kind, WIDTH, HEIGHT, 3);
  const rgba = new Uint8Array(WIDTH * HEIGHT * 4);
  for (let i = 0, j = 0; i < rgb.data.length; i += 3, j += 4) {
    rgba[j] = rgb.data[i];
    rgba[j + 1] = rgb.data[i + 1];
    rgba[j + 2] = rgb.data[i + 2];
    rgba[j + 3] = 255;
  }
  return { kind, rgb, rgbBuffer: Buffer.from(rgb.data), rgba: Buffer.from(rgba) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function psnr(jpeg, source) {
  const decoded = await sharp(jpeg).raw().toBuffer();
  let sum = 0;
  for (let i = 0; i < source.length; i++) sum += (decoded[i] - source[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / source.length));
}

const load = { before: loadavg()[0] };

/** Pairs timed by {@link afterCollection}. */
const COLLECTION_PAIRS = 9;

/**
 * Ours right after a full garbage collection against ours without one, in pairs on one cell.
 * A process that allocates elsewhere (a server, or jpeg-js in these rounds) has such collections
 * on its own; the encoder must not lose its compiled code to them (see spare-buffers.ts).
 * Needs `gc` (node --expose-gc, as `npm run bench:jpeg` runs it); undefined without it.
 */
function afterCollection(img, q) {
  if (typeof globalThis.gc !== 'function') return undefined;
  const after = [];
  const without = [];
  const time = () => {
    const start = process.hrtime.bigint();
    ourEncoder.encode(img.rgb, { quality: q });
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  for (let i = 0; i < COLLECTION_PAIRS; i++) {
    globalThis.gc();
    after.push(time());
    without.push(time());
  }
  return { kind: img.kind, q, after: median(after), without: median(without) };
}

async function run() {
  const images = IMAGE_KINDS.map(prepare);
  const cells = images.flatMap((img) => QUALITIES.map((q) => ({ img, q, times: {}, ratios: { sharp: [], 'jpeg-js': [], cjpeg: [] } })));
  for (const cell of cells) for (const n of names) cell.times[n] = [];
  for (const cell of cells) cell.times.cjpeg = [];
  const cjpeg = CJPEG === undefined ? undefined : cjpegTimer(images, WIDTH, HEIGHT);
  try {
    await timeRounds(cells, cjpeg);
    load.after = loadavg()[0];
    await compareOutputs(cells, cjpeg);
  } finally {
    cjpeg?.close();
  }
  return cells;
}

/** The timed rounds: each cell's in-process encoders in rotating order, then cjpeg. */
async function timeRounds(cells, cjpeg) {
  for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
    for (const cell of cells) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      const t = {};
      for (const n of order) {
        const start = process.hrtime.bigint();
        await encoders[n](cell.img, cell.q);
        t[n] = Number(process.hrtime.bigint() - start) / 1e6;
      }
      const cjpegMs = cjpeg?.time(cell.img.kind, cell.q);
      if (round < WARMUP_ROUNDS) continue;
      for (const n of names) cell.times[n].push(t[n]);
      cell.ratios.sharp.push(t.ours / t.sharp);
      cell.ratios['jpeg-js'].push(t.ours / t['jpeg-js']);
      if (cjpegMs !== undefined) {
        cell.times.cjpeg.push(cjpegMs);
        cell.ratios.cjpeg.push(t.ours / cjpegMs);
      }
    }
    progress(`round ${round + 1}/${WARMUP_ROUNDS + ROUNDS}`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
}

/** Sizes, PSNR and byte identity of each encoder's file for each cell. */
async function compareOutputs(cells, cjpeg) {
  for (const cell of cells) {
    cell.bytes = {};
    cell.psnr = {};
    const outputs = {};
    for (const n of names) {
      const out = await encoders[n](cell.img, cell.q);
      outputs[n] = Buffer.from(out);
      cell.bytes[n] = out.length;
      cell.psnr[n] = await psnr(out, cell.img.rgbBuffer);
    }
    // SOI, then our APP0 (FF E0, length 16) that sharp's file does not have.
    const withoutApp0 = Buffer.concat([outputs.ours.subarray(0, 2), outputs.ours.subarray(20)]);
    cell.sameAsSharp = outputs.ours[3] === 0xe0 && withoutApp0.equals(outputs.sharp);
    cell.sameAsCjpeg = cjpeg === undefined ? undefined : outputs.ours.equals(cjpeg.encode(cell.img.kind, cell.q));
  }
}

/** Megapixels a second from a time in milliseconds. */
const rate = (ms) => MEGAPIXELS / (ms / 1000);

/** The rates beside libjpeg-turbo's, one row per cell. */
function rateTable(cells) {
  if (CJPEG === undefined) return 'cjpeg not installed (Debian libjpeg-turbo-progs): libjpeg-turbo\'s own rate not measured.';
  const lines = [
    '| image | q | ours MP/s | sharp MP/s | cjpeg MP/s | cjpeg ms | ours/cjpeg | identical to cjpeg |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const c of cells) {
    const mps = (n) => rate(median(c.times[n])).toFixed(1);
    lines.push(
      `| ${c.img.kind} | ${c.q} | ${mps('ours')} | ${mps('sharp')} | ${mps('cjpeg')} | ${median(c.times.cjpeg).toFixed(1)} | ` +
        `${median(c.ratios.cjpeg).toFixed(2)}x | ${c.sameAsCjpeg ? 'yes' : 'NO'} |`,
    );
  }
  const all = (n) => rate(median(cells.map((c) => median(c.times[n])))).toFixed(1);
  lines.push('', `At the median cell time: ours ${all('ours')} MP/s, sharp ${all('sharp')} MP/s, cjpeg ${all('cjpeg')} MP/s ` +
    `(${CJPEG}); ours/cjpeg ${median(cells.map((c) => median(c.ratios.cjpeg))).toFixed(2)}x.`);
  return lines.join('\n');
}

function table(cells, collection) {
  const lines = [
    '| image | q | ours ms | sharp ms | jpeg-js ms | ours/sharp | ours/jpeg-js | ours bytes | sharp bytes | jpeg-js bytes | ours PSNR | sharp PSNR | jpeg-js PSNR |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const c of cells) {
    const ms = (n) => median(c.times[n]).toFixed(1);
    const db = (n) => c.psnr[n].toFixed(2);
    lines.push(
      `| ${c.img.kind} | ${c.q} | ${ms('ours')} | ${ms('sharp')} | ${ms('jpeg-js')} | ` +
        `${median(c.ratios.sharp).toFixed(2)}x | ${median(c.ratios['jpeg-js']).toFixed(3)}x | ` +
        `${c.bytes.ours} | ${c.bytes.sharp} | ${c.bytes['jpeg-js']} | ${db('ours')} | ${db('sharp')} | ${db('jpeg-js')} |`,
    );
  }
  if (cells.every((c) => c.sameAsSharp)) {
    lines.push('', 'In every cell our file minus its 18-byte JFIF APP0 segment (which libvips leaves out) is ' +
      'byte-identical to sharp\'s.');
  }
  const vsSharp = cells.map((c) => median(c.ratios.sharp));
  const vsJs = cells.map((c) => median(c.ratios['jpeg-js']));
  lines.push(
    '',
    `Median over the ${cells.length} cells: ours/sharp ${median(vsSharp).toFixed(2)}x ` +
      `(worst cell ${Math.max(...vsSharp).toFixed(2)}x), ours/jpeg-js ${median(vsJs).toFixed(3)}x ` +
      `(worst cell ${Math.max(...vsJs).toFixed(3)}x).`,
  );
  const c = collection;
  lines.push('', c === undefined
    ? 'Not measured: ours right after a full garbage collection (run with node --expose-gc).'
    : `Ours right after a full garbage collection (forced with \`gc()\`, untimed), ${c.kind} q${c.q}: ` +
      `${c.after.toFixed(1)} ms, against ${c.without.toFixed(1)} ms in the encode that follows it ` +
      `(medians of ${COLLECTION_PAIRS} pairs).`);
  return lines.join('\n');
}

function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown CPU';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // not Linux: keep what os.cpus() says
  }
  return `${cpuModel}, ${cpus().length} cores, Node ${process.version}, sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`;
}

/** The date as `date` prints it, or ISO where there is no `date`. */
function now() {
  try {
    return execFileSync('date', { encoding: 'utf8' }).trim();
  } catch {
    return new Date().toISOString();
  }
}

function section(cells, collection) {
  return [
    '## JPEG encoder',
    '',
    `Run ${now()} on ${machine()}.`,
    `All three encoders ran in one process on the same ${cpus().length} cores; sharp with \`sharp.concurrency(1)\`. ` +
      `1-minute load average ${load.before.toFixed(2)} before and ${load.after.toFixed(2)} after the timed rounds ` +
      '(anything well above 1 means other work shared the cores).',
    `${WIDTH}x${HEIGHT} RGB, ours with 4:2:0 and optimised Huffman tables (its defaults), sharp \`.jpeg({ quality })\`` +
      ' from raw RGB (4:2:0, optimised coding), jpeg-js from RGBA. ' +
      `Milliseconds are medians of ${ROUNDS} round-robin rounds after ${WARMUP_ROUNDS} warm-up rounds; ` +
      'ratios are medians of the per-round ratios. PSNR is over RGB after decoding with sharp. ' +
      'Reproduce: `cd bench && npm install && npm run bench:jpeg`.',
    '',
    table(cells, collection),
    '',
    'libjpeg-turbo\'s own rate: `cjpeg -quality q -baseline -optimize -sample 2x2` (our defaults), run in each round ' +
      'after the in-process encoders on PPM files in tmpfs, output to /dev/null; its time is that of the image ' +
      'stacked on itself (twice the rows) minus that of the image alone, so the process start, the headers and the ' +
      'file handling drop out (lib/jpeg-cjpeg.mjs). Megapixels a second are of the median times.',
    '',
    rateTable(cells),
    '',
  ].join('\n');
}


const cells = await run();
const photo = cells.find((c) => c.img.kind === 'photo' && c.q === 85) ?? cells[0];
const text = section(cells, afterCollection(photo.img, photo.q));
console.log(text);
if (args.includes('--write')) writeResultsSection('## JPEG encoder', text);

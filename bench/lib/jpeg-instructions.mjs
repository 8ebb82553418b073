// The JPEG encoder in machine instructions: bench:jpeg's nine cells (three 1125x2436 images at
// quality 75, 85 and 92, the encoder's defaults) under valgrind's callgrind, a figure that stays
// put while other work shares the cores (wall-clock times here move by tens of percent).
//
//   node --import tsx bench/lib/jpeg-instructions.mjs        (from the repository root; needs valgrind)
//   ENCODER=<dir of a built src/jpeg> compares another build (default: src/jpeg built now with tsc)
//
// The encoder is built with tsc, as production runs it. Two processes run under callgrind, one
// encoding the nine cells once and one twice; their difference is one round in steady state
// (start-up, image loading and the JIT's first compiles drop out). Functions are named from
// V8's perf map (--perf-basic-prof), and each function's count is its difference too.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WIDTH = 1125;
const HEIGHT = 2436;
const QUALITIES = [75, 85, 92];
const KINDS = ['poster', 'detailed', 'photo'];
const CELLS = KINDS.length * QUALITIES.length;
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The child: encodes every cell `rounds` times with the encoder in `dir`, images read from `work`. */
async function encodeRounds(dir, work, rounds) {
  const { JpegEncoder } = await import(join(dir, 'encode.js'));
  const images = KINDS.map((kind) => ({
    width: WIDTH, height: HEIGHT, channels: 3, data: new Uint8Array(readFileSync(join(work, `${kind}.rgb`))),
  }));
  const encoder = new JpegEncoder();
  for (let r = 0; r < rounds; r++) for (const image of images) for (const quality of QUALITIES) encoder.encode(image, { quality });
}

/** Runs the child under callgrind; resolves with its dump and perf map. */
function underCallgrind(dir, work, rounds) {
  const out = join(work, `cg.${rounds}`);
  const child = spawn('valgrind', [
    '--tool=callgrind', `--callgrind-out-file=${out}`, '--smc-check=all-non-file',
    process.execPath, '--single-threaded', '--perf-basic-prof', '--logfile=/dev/null', fileURLToPath(import.meta.url),
  ], { env: { ...process.env, JPEG_CHILD: JSON.stringify({ dir, work, rounds }) }, stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => child.once('exit', (code) => {
    if (code !== 0) reject(new Error(`callgrind run exited ${code}: ${stderr.slice(-2000)}`));
    else resolve({ out, map: `/tmp/perf-${child.pid}.map` });
  }));
}

/** Instructions by function name (JIT code named from the perf map), and the total. */
function byFunction({ out, map }) {
  const ranges = readFileSync(map, 'utf8').trim().split('\n').map((line) => {
    const [start, size, ...name] = line.split(' ');
    return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
  });
  const text = execFileSync('callgrind_annotate', ['--threshold=100', out], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const counts = new Map();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1].replaceAll(',', ''));
    let name = m[2];
    if (name.startsWith('PROGRAM TOTALS')) {
      total = n;
      continue;
    }
    const address = /^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]/.exec(name)?.[1];
    if (address !== undefined) {
      const at = parseInt(address, 16);
      name = ranges.findLast((r) => at >= r.start && at < r.end)?.name ?? 'JIT code (unnamed)';
    }
    // 'JS:*encode file:///…/jpeg/encode.js:12:3' -> 'encode (encode.js)'; tiers merged.
    name = name.replace(/^JS:[*+~^]?'?(\S*) file:\/\/\S*\/([^/:]+):\d+:\d+$/, '$1 ($2)').replace(/ \[[^\]]*\]$/, '');
    counts.set(name, (counts.get(name) ?? 0) + n);
  }
  rmSync(out, { force: true });
  rmSync(map, { force: true });
  return { total, counts };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'jpeg-instructions-'));
  try {
    let dir = process.env.ENCODER;
    if (dir === undefined) {
      dir = join(work, 'build');
      execFileSync(join(root, 'node_modules/.bin/tsc'), [join(root, 'src/jpeg/index.ts'), '--outDir', dir,
        '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--strict', '--skipLibCheck']);
    }
    const { makeImage } = await import(join(root, 'test/jpeg/images.ts'));
    for (const kind of KINDS) writeFileSync(join(work, `${kind}.rgb`), makeImage(kind, WIDTH, HEIGHT, 3).data);
    const [once, twice] = (await Promise.all([underCallgrind(dir, work, 1), underCallgrind(dir, work, 2)])).map(byFunction);
    const steady = twice.total - once.total;
    const rows = [...twice.counts].map(([name, n]) => [name, n - (once.counts.get(name) ?? 0)])
      .filter(([, n]) => n > steady / 500).sort((a, b) => b[1] - a[1]);
    console.log(`${process.version}, ${dir}`);
    console.log(`steady round of ${CELLS} encodes: ${(steady / 1e6).toFixed(1)} M instructions, ${(steady / CELLS / 1e6).toFixed(1)} M an encode`);
    console.log('| function | M instructions an encode | share |\n| --- | ---: | ---: |');
    for (const [name, n] of rows) console.log(`| ${name} | ${(n / CELLS / 1e6).toFixed(2)} | ${((100 * n) / steady).toFixed(1)} % |`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const child = process.env.JPEG_CHILD;
if (child === undefined) await main();
else {
  const { dir, work, rounds } = JSON.parse(child);
  await encodeRounds(dir, work, rounds);
}

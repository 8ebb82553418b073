/**
 * Helpers for the JPEG tests: netpbm input for cjpeg, marker segment parsing,
 * temporary directories and the outside programs of the e2e tier (cjpeg,
 * djpeg, jpeginfo). A missing program is an error, never a skip.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JpegOptions } from '../../src/jpeg/encode.js';
import type { TestImage } from './images.js';

/** Where each outside program comes from, for the error when it is missing. */
const PACKAGES: Record<string, string> = {
  cjpeg: 'libjpeg-turbo-progs',
  djpeg: 'libjpeg-turbo-progs',
  rdjpgcom: 'libjpeg-turbo-progs',
  jpeginfo: 'jpeginfo',
};

export interface ToolResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs a program to completion; throws if it is missing or exits non-zero. */
export function runTool(program: string, args: string[]): ToolResult {
  const result = spawnSync(program, args, { maxBuffer: 256 * 1024 * 1024 });
  if (result.error) {
    const hint = PACKAGES[program] ? ` (Debian package ${PACKAGES[program]}; run scripts/install-test-tools)` : '';
    throw new Error(`cannot run ${program}: ${result.error.message}${hint}`);
  }
  const stderr = result.stderr.toString();
  if (result.status !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited with ${result.status}: ${stderr}`);
  }
  return { stdout: result.stdout, stderr };
}

/** Binary PPM (P6) for RGB/RGBA (alpha dropped) or PGM (P5) for grey. */
export function toNetpbm(image: TestImage): Buffer {
  const { width, height, channels, data } = image;
  if (channels === 1) return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`), data]);
  const rgb = Buffer.alloc(width * height * 3);
  for (let i = 0, p = 0; i < rgb.length; i += 3, p += channels) {
    rgb[i] = data[p];
    rgb[i + 1] = data[p + 1];
    rgb[i + 2] = data[p + 2];
  }
  return Buffer.concat([Buffer.from(`P6\n${width} ${height}\n255\n`), rgb]);
}

/** Parses a netpbm P5/P6 file as written by djpeg. */
export function parseNetpbm(file: Buffer): TestImage {
  const header = /^P([56])\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(file.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('not a binary PGM/PPM file');
  const [whole, kind, width, height] = header;
  return {
    width: Number(width),
    height: Number(height),
    channels: kind === '5' ? 1 : 3,
    data: new Uint8Array(file.subarray(whole.length)),
  };
}

/** One marker segment: its marker byte, where it starts and its length field. */
export interface Segment {
  marker: number;
  offset: number;
  /** Length field (counts itself, not the marker); 0 for SOI, EOI and RSTn. */
  length: number;
}

/**
 * Lists the marker segments of a JPEG file in order, skipping the
 * entropy-coded data after SOS (stuffed 0xFF00 and RSTn stay inside it).
 */
export function segments(jpeg: Uint8Array): Segment[] {
  const found: Segment[] = [];
  let i = 0;
  while (i < jpeg.length) {
    if (jpeg[i] !== 0xff) throw new Error(`expected a marker at byte ${i}`);
    const marker = jpeg[i + 1];
    if (marker === 0xd8 || marker === 0xd9) {
      found.push({ marker, offset: i, length: 0 });
      i += 2;
      continue;
    }
    const length = (jpeg[i + 2] << 8) | jpeg[i + 3];
    found.push({ marker, offset: i, length });
    i += 2 + length;
    if (marker === 0xda) i = skipScan(jpeg, i);
  }
  return found;
}

/** Index of the first marker after entropy-coded data that is not stuffing or RSTn. */
function skipScan(jpeg: Uint8Array, start: number): number {
  let i = start;
  while (i + 1 < jpeg.length) {
    if (jpeg[i] === 0xff && jpeg[i + 1] !== 0 && (jpeg[i + 1] < 0xd0 || jpeg[i + 1] > 0xd7)) return i;
    i++;
  }
  throw new Error('scan data runs to the end of the file');
}

/** Everything from the first DQT marker to the end: what must equal cjpeg's output. */
export function fromFirstDqt(jpeg: Uint8Array): Uint8Array {
  const dqt = segments(jpeg).find((s) => s.marker === 0xdb);
  if (!dqt) throw new Error('no DQT marker');
  return jpeg.subarray(dqt.offset);
}

/** Index of the first differing byte, or -1 if equal. */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/**
 * cjpeg arguments equivalent to our options (baseline; the accurate integer
 * DCT is cjpeg's default). libjpeg-turbo's cjpeg has no `-comment`: a
 * comment is left out here and the caller removes our COM segment before
 * comparing (see {@link withoutComment}).
 */
export function cjpegArgs(options: Required<Omit<JpegOptions, 'comment'>>, grey: boolean): string[] {
  const args = ['-quality', String(options.quality), '-baseline'];
  if (options.optimizeHuffman) args.push('-optimize');
  if (grey) args.push('-grayscale');
  else args.push('-sample', { '4:2:0': '2x2', '4:2:2': '2x1', '4:4:4': '1x1' }[options.subsampling]);
  if (options.restartInterval > 0) args.push('-restart', `${options.restartInterval}B`);
  return args;
}

/** The file without its COM segments. */
export function withoutComment(jpeg: Uint8Array): Uint8Array {
  const parts = [];
  let from = 0;
  for (const s of segments(jpeg)) {
    if (s.marker !== 0xfe) continue;
    parts.push(jpeg.subarray(from, s.offset));
    from = s.offset + 2 + s.length;
  }
  parts.push(jpeg.subarray(from));
  return new Uint8Array(Buffer.concat(parts));
}

/** Runs `fn` with a fresh temporary directory that is removed afterwards. */
export function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'jpeg-test-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Peak signal-to-noise ratio in dB between two images of the same shape. */
export function psnr(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return sum === 0 ? Infinity : 10 * Math.log10((255 * 255 * a.length) / sum);
}

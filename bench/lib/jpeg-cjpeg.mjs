// libjpeg-turbo's own rate, for bench:jpeg: cjpeg (Debian libjpeg-turbo-progs, SIMD) timed on the
// same pixels as the in-process encoders, with its process start and file handling taken out.
//
// cjpeg can only be run as a program, which starts, reads a PPM and writes a file. Each image is
// written twice to tmpfs (so its reads come from memory): once as is, once stacked on itself
// (twice the rows). Both are encoded with the output going to /dev/null; the stacked file's time
// minus the single file's is the time of one image's pixels, read from memory and encoded, without
// the start, the headers or the process's end. Reading 8 MB from the page cache is a small part of
// it (a memcpy, about a millisecond), and it stays in: the figure is a limit, not a flattering one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The arguments cjpeg needs to write our bytes (test/jpeg/tools.ts's cjpegArgs for our defaults). */
const cjpegArgs = (quality) => ['-quality', String(quality), '-baseline', '-optimize', '-sample', '2x2'];

/** A binary PPM of `copies` copies of `rgb` (width x height RGB), one below the other. */
function ppm(rgb, width, height, copies) {
  const header = Buffer.from(`P6\n${width} ${height * copies}\n255\n`);
  return Buffer.concat([header, ...Array.from({ length: copies }, () => rgb)]);
}

/** cjpeg's version line, or undefined when it is not installed. */
export function cjpegVersion() {
  const run = spawnSync('cjpeg', ['-version'], { encoding: 'utf8' });
  return run.error ? undefined : run.stderr.trim().split('\n')[0];
}

/**
 * Writes each image's PPMs to a temporary directory on tmpfs (/dev/shm where there is one) and
 * returns a timer for them; `close()` removes the files.
 */
export function cjpegTimer(images, width, height) {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'bench-jpeg-'));
  const files = new Map();
  for (const img of images) {
    const single = join(dir, `${img.kind}.ppm`);
    const stacked = join(dir, `${img.kind}-stacked.ppm`);
    writeFileSync(single, ppm(img.rgbBuffer, width, height, 1));
    writeFileSync(stacked, ppm(img.rgbBuffer, width, height, 2));
    files.set(img.kind, { single, stacked });
  }
  const run = (file, quality) => {
    const start = process.hrtime.bigint();
    const result = spawnSync('cjpeg', [...cjpegArgs(quality), '-outfile', '/dev/null', file]);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) throw new Error(`cjpeg ${file}: ${result.stderr}`);
    return ms;
  };
  return {
    /** Milliseconds of one image's pixels: the stacked file's run minus the single file's. */
    time(kind, quality) {
      const { single, stacked } = files.get(kind);
      return run(stacked, quality) - run(single, quality);
    },
    /** cjpeg's file for one image, to hold ours against. */
    encode(kind, quality) {
      const result = spawnSync('cjpeg', [...cjpegArgs(quality), files.get(kind).single], { maxBuffer: 1 << 26 });
      return result.stdout;
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

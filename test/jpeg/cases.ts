/**
 * The e2e case matrix shared by the cjpeg comparison and the decoder checks:
 * every image kind, size, quality, subsampling, table choice and restart
 * setting, plus grey and a few full-size posters.
 */
import type { JpegOptions, Subsampling } from '../../src/jpeg/encode.js';
import { IMAGE_KINDS, makeImage, type ImageKind, type TestImage } from './images.js';

export interface JpegCase {
  /** Unique, readable name; also used in assertion messages. */
  name: string;
  image: TestImage;
  options: Required<Omit<JpegOptions, 'comment'>> & { comment?: string };
  /** What cjpeg reads: `image` itself, or for `rgbAsGrey` the RGB original. */
  cjpegInput: TestImage;
  /** cjpeg converts RGB to grey itself (`-grayscale` on a PPM). */
  grey: boolean;
}

export const QUALITIES = [1, 50, 75, 85, 92, 100];
export const SUBSAMPLINGS: readonly Subsampling[] = ['4:2:0', '4:2:2', '4:4:4'];
export const SMALL_SIZES: ReadonlyArray<[number, number]> = [[1, 1], [7, 9], [17, 15], [61, 47]];
export const POSTER_SIZE: [number, number] = [1125, 2436];

const images = new Map<string, TestImage>();

/** Each image is generated once per process. */
export function image(kind: ImageKind, width: number, height: number, channels: 1 | 3 | 4): TestImage {
  const key = `${kind} ${width}x${height}x${channels}`;
  let found = images.get(key);
  if (!found) images.set(key, (found = makeImage(kind, width, height, channels)));
  return found;
}

function describeCase(kind: string, image: TestImage, options: JpegCase['options'], extra = ''): string {
  const tables = options.optimizeHuffman ? 'optimised' : 'standard';
  const sampling = image.channels === 1 ? 'grey' : options.subsampling;
  return `${kind} ${image.width}x${image.height} q${options.quality} ${sampling} ${tables} tables restart ${options.restartInterval}${extra}`;
}

function colourCase(kind: ImageKind, image: TestImage, options: JpegCase['options'], extra = ''): JpegCase {
  return { name: describeCase(kind, image, options, extra), image, options, cjpegInput: image, grey: image.channels === 1 };
}

/** Every kind x small size x quality x subsampling x table choice x restart setting, RGB. */
export function colourCases(): JpegCase[] {
  const cases: JpegCase[] = [];
  for (const kind of IMAGE_KINDS) {
    for (const [width, height] of SMALL_SIZES) {
      for (const quality of QUALITIES) {
        for (const subsampling of SUBSAMPLINGS) {
          for (const optimizeHuffman of [true, false]) {
            for (const restartInterval of [0, 3]) {
              cases.push(colourCase(kind, image(kind, width, height, 3), { quality, subsampling, optimizeHuffman, restartInterval }));
            }
          }
        }
      }
    }
  }
  return cases;
}

/** Grey input (one component), compared with cjpeg reading a PGM of the same bytes. */
export function greyCases(): JpegCase[] {
  const cases: JpegCase[] = [];
  for (const kind of IMAGE_KINDS) {
    for (const [width, height] of SMALL_SIZES) {
      for (const quality of QUALITIES) {
        for (const optimizeHuffman of [true, false]) {
          for (const restartInterval of [0, 3]) {
            cases.push(colourCase(kind, image(kind, width, height, 1), { quality, subsampling: '4:2:0', optimizeHuffman, restartInterval }));
          }
        }
      }
    }
  }
  return cases;
}

/**
 * RGB with `cjpeg -grayscale`: cjpeg converts to luma with the same
 * fixed-point weights as our colour stage, so our grey encode of
 * `rgbToGrey(rgb)` must equal cjpeg's output for the PPM. Also RGBA (alpha
 * dropped for cjpeg) and a comment.
 */
export function conversionCases(greyOf: (rgb: TestImage) => TestImage): JpegCase[] {
  const cases: JpegCase[] = [];
  for (const kind of IMAGE_KINDS) {
    const rgb = image(kind, 61, 47, 3);
    for (const quality of [50, 85, 100]) {
      for (const optimizeHuffman of [true, false]) {
        const options = { quality, subsampling: '4:2:0' as const, optimizeHuffman, restartInterval: 0 };
        cases.push({ name: describeCase(kind, rgb, options, ' rgb -grayscale'), image: greyOf(rgb), options, cjpegInput: rgb, grey: true });
      }
    }
    const rgba = image(kind, 17, 15, 4);
    for (const subsampling of SUBSAMPLINGS) {
      cases.push(colourCase(kind, rgba, { quality: 75, subsampling, optimizeHuffman: true, restartInterval: 1 }, ' rgba'));
    }
    const comment = `${kind} poster, ünïcödé`;
    cases.push(colourCase(kind, image(kind, 17, 15, 3), { quality: 85, subsampling: '4:2:0', optimizeHuffman: true, restartInterval: 0, comment }, ' comment'));
  }
  return cases;
}

/** A few full-size (1125x2436) combinations, to keep the tier short. */
export function posterCases(): JpegCase[] {
  const [width, height] = POSTER_SIZE;
  const settings: Array<[ImageKind, 1 | 3, JpegCase['options']]> = [
    ['poster', 3, { quality: 85, subsampling: '4:2:0', optimizeHuffman: true, restartInterval: 0 }],
    ['detailed', 3, { quality: 92, subsampling: '4:4:4', optimizeHuffman: false, restartInterval: 64 }],
    ['photo', 3, { quality: 75, subsampling: '4:2:2', optimizeHuffman: true, restartInterval: 100 }],
    ['poster', 3, { quality: 100, subsampling: '4:2:0', optimizeHuffman: true, restartInterval: 7 }],
    ['photo', 1, { quality: 50, subsampling: '4:2:0', optimizeHuffman: true, restartInterval: 0 }],
  ];
  return settings.map(([kind, channels, options]) => colourCase(kind, image(kind, width, height, channels), options));
}

/**
 * Frame geometry: components, sampling factors, blocks and MCUs
 * (T.81 A.1.1 and A.2). Also owns the per-MCU-row sample planes that the
 * colour stage fills and the DCT stage reads.
 */

/** Chroma subsampling of a colour image, as J:a:b. */
export type Subsampling = '4:2:0' | '4:2:2' | '4:4:4';

/** One image component as it appears in SOF0 and SOS. */
export interface FrameComponent {
  /** Component identifier Ci (1 = Y, 2 = Cb, 3 = Cr, as JFIF assigns them). */
  readonly id: number;
  /** Horizontal and vertical sampling factors Hi, Vi. */
  readonly h: number;
  readonly v: number;
  /** Quantisation table selector Tqi, also used as Huffman table selector. */
  readonly table: 0 | 1;
  /** Blocks that hold image samples: ceil(ceil(X * Hi / Hmax) / 8) (A.1.1). */
  readonly blocksWide: number;
  readonly blocksHigh: number;
  /** Row stride of `plane`: the samples of all real blocks of a row. */
  readonly stride: number;
  /** Samples of one MCU row: `v * 8` rows of `stride` bytes. */
  readonly plane: Uint8Array;
  /** `plane` seen as a DataView, for the DCT's four-samples-at-once reads and the colour stage's wide writes. */
  readonly view: DataView;
  /** `plane` seen as 32-bit words, for the uniform-block test (rows and blocks start on whole words). */
  readonly words: Int32Array;
}

/** Everything the stages need to know about the frame's shape. */
export interface FrameLayout {
  readonly width: number;
  readonly height: number;
  readonly hMax: number;
  readonly vMax: number;
  /** MCUs per row and MCU rows (one block per MCU for a single component). */
  readonly mcusWide: number;
  readonly mcusHigh: number;
  readonly components: readonly FrameComponent[];
}

/** Sampling factors of Y for each subsampling; Cb and Cr are always 1x1. */
const LUMA_SAMPLING: Readonly<Record<Subsampling, readonly [number, number]>> = {
  '4:2:0': [2, 2],
  '4:2:2': [2, 1],
  '4:4:4': [1, 1],
};

/**
 * Lays out a frame of `width` x `height` pixels: one component for grey,
 * otherwise Y, Cb, Cr with Y carrying the larger sampling factors and the
 * chroma components sharing table 1, the usual JFIF arrangement.
 */
export function planFrame(width: number, height: number, mode: Subsampling | 'grey'): FrameLayout {
  const [hMax, vMax] = mode === 'grey' ? [1, 1] : LUMA_SAMPLING[mode];
  const specs: Array<[number, number, number, 0 | 1]> = mode === 'grey'
    ? [[1, 1, 1, 0]]
    : [[1, hMax, vMax, 0], [2, 1, 1, 1], [3, 1, 1, 1]];
  const components = specs.map(([id, h, v, table]) => {
    const blocksWide = Math.ceil(Math.ceil((width * h) / hMax) / 8);
    const blocksHigh = Math.ceil(Math.ceil((height * v) / vMax) / 8);
    const stride = blocksWide * 8;
    const plane = new Uint8Array(stride * v * 8);
    const view = new DataView(plane.buffer);
    return { id, h, v, table, blocksWide, blocksHigh, stride, plane, view, words: new Int32Array(plane.buffer) };
  });
  return {
    width,
    height,
    hMax,
    vMax,
    mcusWide: Math.ceil(width / (8 * hMax)),
    mcusHigh: Math.ceil(height / (8 * vMax)),
    components,
  };
}

/**
 * The colour stage's order: for each MCU row, the source rows it covers go
 * through color.ts's row conversions into every component's sample plane,
 * and rows below the image are padded.
 *
 * A whole image's rows are read where they lie in its data. A banded image
 * (JpegBandedImage) is asked to draw as many whole MCU rows as its band holds,
 * row `top` at byte 0, when the next MCU row is not in the band yet, and they
 * are read from there: the offsets handed to color.ts only lose `top` rows,
 * so the row loops are the same for both. Fewer, larger bands keep the
 * drawing's fixed costs per band small.
 */
import {
  convertRowH1V1, convertRowH2V1, convertRowsH2V2, rowSourceOf, type PixelSource, type RowSource, type RowTarget,
} from './color.js';
import type { FrameLayout } from './frame.js';

/**
 * The pixels of a frame: the whole image in `data`, or with `drawRows` a band of rows that it
 * refills (image row `first` at byte 0) before each MCU row is read.
 */
export interface McuRowSource extends PixelSource {
  readonly drawRows?: ((first: number, count: number) => void) | undefined;
}

/**
 * Fills the component planes of a {@link FrameLayout} one MCU row at a time.
 * Rows below the image repeat the last row that was actually produced for
 * each component (for 2x2 chroma, the last averaged row), as libjpeg pads.
 */
export class McuRowConverter {
  private readonly target: RowTarget;
  private readonly source: RowSource;
  /** Image rows the band holds now, [bandTop, bandEnd); none yet. */
  private bandTop = 0;
  private bandEnd = 0;

  constructor(private readonly src: McuRowSource, private readonly layout: FrameLayout) {
    const [, cb, cr] = layout.components;
    const luma = layout.components[0]!; // planFrame always gives Y (or the grey component) first
    this.target = {
      yPlane: luma.plane, yStart: 0, yLength: luma.stride,
      cbPlane: cb?.plane ?? luma.plane, crPlane: cr?.plane ?? luma.plane, cStart: 0, cLength: cb?.stride ?? 0,
      yView: luma.view, cbView: cb?.view ?? luma.view, crView: cr?.view ?? luma.view,
    };
    this.source = rowSourceOf(src.data);
  }

  /** Produces the samples of MCU row `mcuRow` in every component's plane. */
  fill(mcuRow: number): void {
    if (this.src.channels === 1) this.fillGrey(mcuRow);
    else this.fillColour(mcuRow);
  }

  /**
   * For a banded source, makes sure the band holds image rows [top, top + rows) (clipped to the
   * image; rows wholly below it are padding and need none), asking it to draw from `top` as many
   * whole MCU rows of `rows` as it holds when it does not; returns the image row at the band's
   * byte 0. A whole image's rows lie at their own offsets: 0.
   */
  private drawBand(top: number, rows: number): number {
    const { drawRows, height, width, channels, data } = this.src;
    if (drawRows === undefined) return 0;
    const needed = Math.min(top + rows, height);
    if (top >= needed || (top >= this.bandTop && needed <= this.bandEnd)) return this.bandTop;
    const bandRows = Math.floor(data.length / (width * channels));
    // A band shorter than an MCU row holds the whole (short) image: validate.ts sees to it.
    const count = Math.min(Math.max(1, Math.floor(bandRows / rows)) * rows, height - top);
    drawRows(top, count);
    this.bandTop = top;
    this.bandEnd = top + count;
    return top;
  }

  private fillGrey(mcuRow: number): void {
    const { data, width, height } = this.src;
    const { plane, stride } = this.layout.components[0]!;
    const bandTop = this.drawBand(mcuRow * 8, 8);
    for (let row = 0; row < 8; row++) {
      const y = mcuRow * 8 + row;
      const start = row * stride;
      if (y >= height) {
        plane.copyWithin(start, start - stride, start);
        continue;
      }
      const offset = (y - bandTop) * width;
      plane.set(data.subarray(offset, offset + width), start);
      plane.fill(plane[start + width - 1]!, start + width, start + stride);
    }
  }

  /** Each of the 8 chroma rows of the MCU row comes from `vMax` source rows. */
  private fillColour(mcuRow: number): void {
    const { width, height, channels } = this.src;
    const { hMax, vMax, components } = this.layout;
    const { target: t, source } = this;
    const rowBytes = width * channels;
    // Chroma rows that hold image data; later rows repeat the last of them.
    const chromaRows = Math.ceil(height / vMax);
    const bandTop = this.drawBand(mcuRow * 8 * vMax, 8 * vMax);
    for (let row = 0; row < 8; row++) {
      t.yStart = row * vMax * t.yLength;
      t.cStart = row * t.cLength;
      const first = (mcuRow * 8 + row) * vMax;
      if (first >= vMax * chromaRows) {
        for (const c of components) repeatPreviousRows(c.plane, c.stride, row * c.v, c.v);
      } else if (hMax === 1) {
        convertRowH1V1(source, (first - bandTop) * rowBytes, channels, width, t);
      } else if (vMax === 1) {
        convertRowH2V1(source, (first - bandTop) * rowBytes, channels, width, t);
      } else {
        // Clamped to the image's last row (the first again at an odd height): never past the MCU row or its band.
        const second = Math.min(first + 1, height - 1);
        convertRowsH2V2(source, (first - bandTop) * rowBytes, (second - bandTop) * rowBytes, channels, width, t);
      }
    }
  }
}

/** Copies plane row `first - 1` into rows `first .. first + count - 1`. */
function repeatPreviousRows(plane: Uint8Array, stride: number, first: number, count: number): void {
  for (let r = first; r < first + count; r++) {
    plane.copyWithin(r * stride, (first - 1) * stride, first * stride);
  }
}

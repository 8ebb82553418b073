/**
 * The colour stage's order: for each MCU row, the source rows it covers go
 * through color.ts's row conversions into every component's sample plane,
 * and rows below the image are padded.
 */
import {
  convertRowH1V1, convertRowH2V1, convertRowsH2V2, rowSourceOf, type PixelSource, type RowSource, type RowTarget,
} from './color.js';
import type { FrameLayout } from './frame.js';

/**
 * Fills the component planes of a {@link FrameLayout} one MCU row at a time.
 * Rows below the image repeat the last row that was actually produced for
 * each component (for 2x2 chroma, the last averaged row), as libjpeg pads.
 */
export class McuRowConverter {
  private readonly target: RowTarget;
  private readonly source: RowSource;

  constructor(private readonly src: PixelSource, private readonly layout: FrameLayout) {
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

  private fillGrey(mcuRow: number): void {
    const { data, width, height } = this.src;
    const { plane, stride } = this.layout.components[0]!;
    for (let row = 0; row < 8; row++) {
      const y = mcuRow * 8 + row;
      const start = row * stride;
      if (y >= height) {
        plane.copyWithin(start, start - stride, start);
        continue;
      }
      plane.set(data.subarray(y * width, y * width + width), start);
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
    for (let row = 0; row < 8; row++) {
      t.yStart = row * vMax * t.yLength;
      t.cStart = row * t.cLength;
      const first = (mcuRow * 8 + row) * vMax;
      if (first >= vMax * chromaRows) {
        for (const c of components) repeatPreviousRows(c.plane, c.stride, row * c.v, c.v);
      } else if (hMax === 1) {
        convertRowH1V1(source, first * rowBytes, channels, width, t);
      } else if (vMax === 1) {
        convertRowH2V1(source, first * rowBytes, channels, width, t);
      } else {
        convertRowsH2V2(source, first * rowBytes, Math.min(first + 1, height - 1) * rowBytes, channels, width, t);
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

/**
 * Walks the MCUs of the single interleaved scan (T.81 A.2.3; one component
 * gives a non-interleaved scan of one block per MCU, A.2.2), transforms each
 * block and appends its symbols to a {@link SymbolStream}.
 */
import { DctBlock, forwardDct, uniformBlockDc, uniformSample } from './dct.js';
import type { FrameLayout } from './frame.js';
import type { QuantDivisors } from './quantize.js';
import { addBlock, addDcOnlyBlock, addDummyBlock, MAX_RECORDS_PER_BLOCK, type SymbolStream } from './symbols.js';

/** Per-scan state: DC predictors, restart counting, the DCT's workspace and output block. */
export class ScanModel {
  private readonly predictors: number[];
  private readonly block = new DctBlock();
  private readonly blocksPerMcu: number;
  /** MCUs coded so far, to place restart markers every `restartInterval`. */
  private mcuCount = 0;

  constructor(
    private readonly layout: FrameLayout,
    private readonly divisors: readonly QuantDivisors[],
    private readonly restartInterval: number,
  ) {
    this.predictors = layout.components.map(() => 0);
    this.blocksPerMcu = layout.components.reduce((sum, c) => sum + c.h * c.v, 0);
  }

  /** Codes MCU row `mcuRow`, whose samples the colour stage has just produced. */
  addMcuRow(mcuRow: number, stream: SymbolStream): void {
    for (let mcuColumn = 0; mcuColumn < this.layout.mcusWide; mcuColumn++) {
      this.startMcu(stream);
      stream.reserve(this.blocksPerMcu * MAX_RECORDS_PER_BLOCK);
      this.addMcu(mcuRow, mcuColumn, stream);
    }
  }

  /** Begins a restart interval where one is due: predictors restart at 0 (F.1.2.1.3). */
  private startMcu(stream: SymbolStream): void {
    if (this.restartInterval > 0 && this.mcuCount > 0 && this.mcuCount % this.restartInterval === 0) {
      stream.markRestart();
      this.predictors.fill(0);
    }
    this.mcuCount++;
  }

  /**
   * Codes the Hi x Vi blocks of each component in one MCU, in raster order
   * (A.2.3). Blocks past the component's edge complete the MCU as dummies.
   */
  private addMcu(mcuRow: number, mcuColumn: number, stream: SymbolStream): void {
    const components = this.layout.components;
    for (let ci = 0; ci < components.length; ci++) {
      const { h, v, table, blocksWide, blocksHigh, stride, view } = components[ci]!;
      const dcSlot = 2 * table;
      const q = this.divisors[table]!;
      for (let by = 0; by < v; by++) {
        const blockRow = mcuRow * v + by;
        for (let bx = 0; bx < h; bx++) {
          const blockColumn = mcuColumn * h + bx;
          if (blockColumn >= blocksWide || blockRow >= blocksHigh) {
            addDummyBlock(stream, dcSlot);
            continue;
          }
          const offset = by * 8 * stride + blockColumn * 8;
          const flat = uniformSample(view, offset, stride);
          if (flat >= 0) {
            this.predictors[ci] = addDcOnlyBlock(stream, uniformBlockDc(flat), q, this.predictors[ci]!, dcSlot);
          } else {
            forwardDct(view, offset, stride, q.deadZone, this.block);
            this.predictors[ci] = addBlock(stream, this.block, q, this.predictors[ci]!, dcSlot);
          }
        }
      }
    }
  }
}

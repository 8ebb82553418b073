/**
 * Walks the MCUs of the single interleaved scan (T.81 A.2.3; one component
 * gives a non-interleaved scan of one block per MCU, A.2.2), transforms each
 * block and appends its symbols to a {@link SymbolStream}.
 */
import { DctBlock, forwardDct, uniformBlockDc, uniformSample } from './dct.js';
import type { FrameComponent, FrameLayout } from './frame.js';
import type { QuantDivisors } from './quantize.js';
import { addBlock, addDcOnlyBlock, addDummyBlock, MAX_RECORDS_PER_BLOCK, type SymbolStream } from './symbols.js';

// The stages' functions, read as module constants rather than through their
// imports: an imported binding is live, so the compiled MCU loop re-checked
// at every block that each still held the same function.
const transform = forwardDct;
const sampleIfUniform = uniformSample;
const uniformDc = uniformBlockDc;
const codeBlock = addBlock;
const codeDcOnlyBlock = addDcOnlyBlock;
const codeDummyBlock = addDummyBlock;

/** The DC predictor of one component (F.1.2.1.3), shared by its blocks in the MCU. */
class DcPredictor {
  dc = 0;
}

/**
 * One block position of the MCU (A.2.3: the Hi x Vi blocks of each component
 * in turn, in raster order) with what coding it needs, worked out once per
 * scan. The MCU loop reads a few fields per block instead of destructuring
 * its component, looking up its divisors and recomputing its place.
 */
interface BlockPlace {
  /** Byte offset in the component's plane of this place's block in MCU column 0. */
  readonly first: number;
  /** Bytes between this place's blocks in neighbouring MCUs: 8 Hi. */
  readonly step: number;
  /** MCU columns, and MCU rows, whose block here holds samples; beyond them it is a dummy (A.2.4). */
  readonly columns: number;
  readonly rows: number;
  readonly view: DataView;
  readonly words: Int32Array;
  readonly stride: number;
  /** Huffman slot of the component's DC; its AC is the next one. */
  readonly dcSlot: number;
  readonly q: QuantDivisors;
  readonly predictor: DcPredictor;
}

/**
 * The place of block (`bx`, `by`) of `component` in the MCU. An object
 * literal, not a class with declared fields: compiled class fields start as
 * undefined, so the JIT could not assume the numbers stayed small integers
 * and tested each one at every read.
 */
function placeOf(component: FrameComponent, bx: number, by: number, q: QuantDivisors, predictor: DcPredictor): BlockPlace {
  const { h, v, stride } = component;
  return {
    first: by * 8 * stride + bx * 8,
    step: 8 * h,
    columns: Math.ceil((component.blocksWide - bx) / h),
    rows: Math.ceil((component.blocksHigh - by) / v),
    view: component.view,
    words: component.words,
    stride,
    dcSlot: 2 * component.table,
    q,
    predictor,
  };
}

/** Per-scan state: DC predictors, restart counting, the DCT's workspace and output block. */
export class ScanModel {
  private readonly predictors: DcPredictor[];
  /** The blocks of one MCU, in coding order. */
  private readonly places: BlockPlace[] = [];
  private readonly mcusWide: number;
  private readonly block = new DctBlock();
  /** MCUs coded so far, to place restart markers every `restartInterval`. */
  private mcuCount = 0;

  constructor(
    layout: FrameLayout,
    divisors: readonly QuantDivisors[],
    private readonly restartInterval: number,
  ) {
    this.mcusWide = layout.mcusWide;
    this.predictors = layout.components.map(() => new DcPredictor());
    layout.components.forEach((component, ci) => {
      for (let by = 0; by < component.v; by++) {
        for (let bx = 0; bx < component.h; bx++) {
          this.places.push(placeOf(component, bx, by, divisors[component.table]!, this.predictors[ci]!));
        }
      }
    });
  }

  /**
   * Codes MCU row `mcuRow`, whose samples the colour stage has just produced.
   * The records of the whole row are reserved at once, not per MCU.
   */
  addMcuRow(mcuRow: number, stream: SymbolStream): void {
    const { places, mcusWide } = this;
    const restarts = this.restartInterval > 0;
    stream.reserve(mcusWide * places.length * MAX_RECORDS_PER_BLOCK);
    for (let mcuColumn = 0; mcuColumn < mcusWide; mcuColumn++) {
      if (restarts) this.startMcu(stream);
      for (let i = 0; i < places.length; i++) this.addBlockAt(places[i]!, mcuRow, mcuColumn, stream);
    }
  }

  /** Begins a restart interval where one is due: predictors restart at 0 (F.1.2.1.3). */
  private startMcu(stream: SymbolStream): void {
    if (this.mcuCount > 0 && this.mcuCount % this.restartInterval === 0) {
      stream.markRestart();
      for (const predictor of this.predictors) predictor.dc = 0;
    }
    this.mcuCount++;
  }

  /** Codes the block at `place` of the MCU in `mcuRow`, `mcuColumn`: a dummy past the component's edge. */
  private addBlockAt(place: BlockPlace, mcuRow: number, mcuColumn: number, stream: SymbolStream): void {
    const predictor = place.predictor;
    if (mcuColumn >= place.columns || mcuRow >= place.rows) {
      codeDummyBlock(stream, place.dcSlot);
      return;
    }
    const offset = place.first + mcuColumn * place.step;
    const flat = sampleIfUniform(place.words, offset >> 2, place.stride >> 2);
    if (flat >= 0) {
      predictor.dc = codeDcOnlyBlock(stream, uniformDc(flat), place.q, predictor.dc, place.dcSlot);
    } else {
      transform(place.view, offset, place.stride, place.q.deadZone, this.block);
      predictor.dc = codeBlock(stream, this.block, place.q, predictor.dc, place.dcSlot);
    }
  }
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFrame } from '../../src/jpeg/frame.js';
import { makeQuantDivisors } from '../../src/jpeg/quantize.js';
import { ScanModel } from '../../src/jpeg/scan.js';
import { EOB, SymbolStream } from '../../src/jpeg/symbols.js';

const unit = makeQuantDivisors(new Uint8Array(64).fill(1));

/** Records as [slot, symbol, bits] triples. */
function decoded(stream: SymbolStream): Array<[number, number, number]> {
  return [...stream.records.subarray(0, stream.length)].map((r) => [r >>> 24, (r >>> 16) & 255, r & 0xffff]);
}

describe('scan', () => {
  it('restarts every N MCUs with the DC predictors back at 0', () => {
    const layout = planFrame(24, 8, 'grey');
    layout.components[0].plane.fill(200); // three flat blocks: DC 64 * 72 / 8 = 576
    const stream = new SymbolStream(64);
    new ScanModel(layout, [unit], 2).addMcuRow(0, stream);
    assert.deepEqual(stream.restarts, [4]);
    assert.deepEqual(decoded(stream), [
      [0, 10, 576], [1, EOB, 0], // MCU 0: difference from 0
      [0, 0, 0], [1, EOB, 0], // MCU 1: same DC
      [0, 10, 576], [1, EOB, 0], // MCU 2: after the restart, from 0 again
    ]);
  });

  it('keeps predicting across MCU rows and does not restart when the interval is 0', () => {
    const layout = planFrame(8, 16, 'grey');
    const stream = new SymbolStream(64);
    const model = new ScanModel(layout, [unit], 0);
    layout.components[0].plane.fill(136); // DC 64 * 8 / 8 = 64
    model.addMcuRow(0, stream);
    model.addMcuRow(1, stream);
    assert.deepEqual(stream.restarts, []);
    assert.deepEqual(decoded(stream).map(([, symbol, bits]) => [symbol, bits]), [[7, 64], [EOB, 0], [0, 0], [EOB, 0]]);
  });

  it('completes 4:2:0 MCUs of an 8x8 image with three dummy luma blocks', () => {
    const layout = planFrame(8, 8, '4:2:0');
    for (const c of layout.components) c.plane.fill(128);
    const stream = new SymbolStream(64);
    new ScanModel(layout, [unit, unit], 0).addMcuRow(0, stream);
    const luma = [[0, 0, 0], [1, EOB, 0]];
    const chroma = [[2, 0, 0], [3, EOB, 0]];
    assert.deepEqual(decoded(stream), [...luma, ...luma, ...luma, ...luma, ...chroma, ...chroma]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFrame } from '../../src/jpeg/frame.js';

describe('frame', () => {
  it('lays out 17x15 as 4:2:0 with Y blocks past the MCU grid left as dummies', () => {
    const layout = planFrame(17, 15, '4:2:0');
    assert.deepEqual([layout.hMax, layout.vMax, layout.mcusWide, layout.mcusHigh], [2, 2, 2, 1]);
    const [y, cb, cr] = layout.components;
    assert.deepEqual([y.id, y.h, y.v, y.table, y.blocksWide, y.blocksHigh, y.stride], [1, 2, 2, 0, 3, 2, 24]);
    assert.deepEqual([cb.id, cb.h, cb.v, cb.table, cb.blocksWide, cb.blocksHigh], [2, 1, 1, 1, 2, 1]);
    assert.deepEqual([cr.id, cr.table], [3, 1]);
    assert.equal(y.plane.length, 24 * 16);
    assert.equal(cb.plane.length, 16 * 8);
  });

  it('lays out 4:2:2 with two Y blocks across and one down per MCU', () => {
    const layout = planFrame(17, 15, '4:2:2');
    assert.deepEqual([layout.mcusWide, layout.mcusHigh], [2, 2]);
    assert.deepEqual(layout.components.map((c) => [c.h, c.v, c.blocksWide, c.blocksHigh]), [[2, 1, 3, 2], [1, 1, 2, 2], [1, 1, 2, 2]]);
  });

  it('lays out 4:4:4 and grey with one block per component per MCU', () => {
    const full = planFrame(9, 1, '4:4:4');
    assert.deepEqual([full.mcusWide, full.mcusHigh], [2, 1]);
    assert.ok(full.components.every((c) => c.h === 1 && c.v === 1 && c.blocksWide === 2));
    const grey = planFrame(65535, 65535, 'grey');
    assert.equal(grey.components.length, 1);
    assert.deepEqual([grey.mcusWide, grey.mcusHigh, grey.components[0].blocksWide], [8192, 8192, 8192]);
  });

  it('rounds component sizes up as T.81 A.1.1 does for a 1x1 image', () => {
    const layout = planFrame(1, 1, '4:2:0');
    assert.deepEqual(layout.components.map((c) => [c.blocksWide, c.blocksHigh]), [[1, 1], [1, 1], [1, 1]]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpenFileSlots } from '../../src/static/open-files.js';

describe('OpenFileSlots', () => {
  it('gives slots at once up to the bound, then makes callers wait', async () => {
    const slots = new OpenFileSlots(2);
    assert.equal(slots.tryTake(), true);
    await slots.take();
    assert.equal(slots.open, 2);
    assert.equal(slots.tryTake(), false, 'a third file would pass the bound');
  });

  it('hands a given-back slot to the first caller that waits, in arrival order', async () => {
    const slots = new OpenFileSlots(1);
    await slots.take();
    const woken: string[] = [];
    const first = slots.take().then(() => woken.push('first'));
    const second = slots.take().then(() => woken.push('second'));
    await Promise.resolve();
    assert.deepEqual(woken, [], 'nobody gets a slot before one is given back');
    slots.give();
    await first;
    assert.deepEqual(woken, ['first']);
    assert.equal(slots.open, 1, 'the slot passed on; it was not freed');
    slots.give();
    await second;
    assert.deepEqual(woken, ['first', 'second']);
    slots.give();
    assert.equal(slots.open, 0);
    assert.equal(slots.tryTake(), true, 'with nobody waiting, a given-back slot is free again');
  });

  it('refuses a bound that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => new OpenFileSlots(bad), TypeError, String(bad));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_OPEN_FILES_PER_CLIENT, MAX_OPEN_STATIC_FILES, OpenFileSlots, SLOT_WAIT_MS, type FileSlot } from '../../src/static/open-files.js';

/** A wait no test reaches: the slot comes first, or the test fails on its own timeout. */
const LONG_WAIT = 60_000;

describe('OpenFileSlots', () => {
  it('holds the bounds docs/http.md, "Limits" names: 256 files, 32 a client address, 2 s of waiting', () => {
    assert.deepEqual([MAX_OPEN_STATIC_FILES, MAX_OPEN_FILES_PER_CLIENT, SLOT_WAIT_MS], [256, 32, 2_000]);
  });

  it('gives slots at once up to the bound, then makes callers wait', async () => {
    const slots = new OpenFileSlots(2);
    assert.ok(slots.tryTake('a'));
    assert.ok(await slots.take('b', LONG_WAIT));
    assert.equal(slots.open, 2);
    assert.equal(slots.tryTake('c'), undefined, 'a third file would pass the bound');
  });

  it('gives one client address at most its share, and the others the rest', () => {
    const slots = new OpenFileSlots(10, 3);
    const hog = Array.from({ length: 5 }, () => slots.tryTake('10.0.0.1'));
    assert.equal(hog.filter((slot) => slot !== undefined).length, 3);
    assert.ok(slots.tryTake('10.0.0.2'), 'another client is not held up by the first one\'s requests');
    assert.equal(slots.open, 4);
  });

  it('hands a given-back slot to the first caller that waits and fits, in arrival order', async () => {
    const slots = new OpenFileSlots(2, 1);
    const held = slots.tryTake('a')!;
    const other = slots.tryTake('b')!;
    const woken: string[] = [];
    const sameClient = slots.take('a', LONG_WAIT).then((slot) => woken.push(`a ${slot !== undefined}`));
    const third = slots.take('c', LONG_WAIT).then((slot) => woken.push(`c ${slot !== undefined}`));
    await Promise.resolve();
    assert.deepEqual(woken, [], 'nobody gets a slot before one is given back');
    other.give();
    await third;
    assert.deepEqual(woken, ['c true'], 'b\'s slot goes to c: a already holds its share');
    held.give();
    await sameClient;
    assert.deepEqual(woken, ['c true', 'a true']);
    assert.equal(slots.open, 2, 'the slots passed on; none was freed');
  });

  it('answers a caller that waited too long with no slot, and forgets it', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const slots = new OpenFileSlots(1);
    const held = slots.tryTake('a')!;
    let outcome: FileSlot | undefined | 'pending' = 'pending';
    void slots.take('b', 2_000).then((slot) => (outcome = slot));
    t.mock.timers.tick(1_999);
    assert.equal(slots.waiting, 1);
    t.mock.timers.tick(1);
    return Promise.resolve().then(() => {
      assert.equal(outcome, undefined);
      assert.equal(slots.waiting, 0);
      held.give();
      assert.equal(slots.open, 0, 'the slot is free: nobody waits for it any more');
    });
  });

  it('counts a slot given back twice once', () => {
    const slots = new OpenFileSlots(2);
    const slot = slots.tryTake('a')!;
    slots.tryTake('b');
    slot.give();
    slot.give();
    assert.equal(slots.open, 1);
  });

  it('refuses bounds that are not positive integers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => new OpenFileSlots(bad), TypeError, String(bad));
      assert.throws(() => new OpenFileSlots(4, bad), TypeError, String(bad));
    }
  });
});

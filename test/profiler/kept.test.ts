import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENTRY_BYTES, MAX_KEPT_TEXT, MAX_PROFILE_BYTES, ProfileBudget } from '../../src/profiler/kept.js';
import { mapEveryString, maskText } from '../../src/config/secrets.js';

const mask = (text: string) => maskText(text, ['hunter2']);

describe('ProfileBudget', () => {
  it('masks credential headers whatever they hold, and secret values in others, sorted by name', () => {
    assert.deepEqual(
      new ProfileBudget(mask).headers({ 'x-b': 'has hunter2 inside', authorization: 'Basic eA==', cookie: 'a=b', 'set-cookie': ['x=1', 'y=2'], accept: '*/*' }),
      [['accept', '*/*'], ['authorization', '******'], ['cookie', '******'], ['set-cookie', '******'], ['x-b', 'has ****** inside']],
    );
  });

  it('cuts one text at MAX_KEPT_TEXT with a marker of the characters cut', () => {
    assert.equal(new ProfileBudget(mask).text('a'.repeat(MAX_KEPT_TEXT + 10)), `${'a'.repeat(MAX_KEPT_TEXT)}… [10 characters cut]`);
  });

  it('masks every string of a nested value, member names included, and keeps the rest', () => {
    const doc = { detail: 'x hunter2', errors: [{ pointer: '/hunter2', reason: 'no' }], n: 1, ok: true, none: null, hunter2: 'k' };
    const expected = { detail: 'x ******', errors: [{ pointer: '/******', reason: 'no' }], n: 1, ok: true, none: null, '******': 'k' };
    assert.deepEqual(new ProfileBudget(mask).value(doc), expected);
    assert.deepEqual(mapEveryString(doc, mask), expected);
  });

  it('keeps a __proto__ member as a member', () => {
    const kept = new ProfileBudget(mask).value(JSON.parse('{"__proto__": {"polluted": "hunter2"}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(kept), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(kept, '__proto__')?.value, { polluted: '******' });
  });

  it('ends a list of 10,000 errors within the budget with a marker counting the rest', () => {
    const errors = Array.from({ length: 10_000 }, (_, i) => ({ pointer: `/k${i}`, reason: 'is not a known member' }));
    const kept = (new ProfileBudget(mask).value({ errors }) as { errors: unknown[] }).errors;
    assert.ok(kept.length < 400, `${kept.length} kept`);
    assert.match(String(kept.at(-1)), /^… \[\d+ more not kept: the profile's 64 KiB are spent\]$/);
    assert.ok(JSON.stringify(kept).length + kept.length * ENTRY_BYTES * 3 <= MAX_PROFILE_BYTES + 1024);
  });

  it('keeps a fixed field as its marker alone once the budget is spent', () => {
    const budget = new ProfileBudget(mask, 100);
    assert.equal(budget.text('a'.repeat(50)), `${'a'.repeat(36)}… [14 characters cut]`);
    assert.ok(budget.spent);
    assert.equal(budget.text('/path'), '… [5 characters cut]');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_KEPT_TEXT, ProfileBudget, REQUEST_PART } from '../../src/profiler/kept.js';
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
    assert.ok(Buffer.byteLength(JSON.stringify(kept)) <= REQUEST_PART.bytes, `${Buffer.byteLength(JSON.stringify(kept))} bytes`);
  });

  it('keeps a fixed field as its marker alone once the budget is spent', () => {
    const budget = new ProfileBudget(mask, { bytes: 1000, markers: 0 });
    // 1000 bytes less 64 for the entry; the marker's `…` makes V8 keep two bytes a character: 468 characters.
    assert.equal(budget.text('a'.repeat(2000)), `${'a'.repeat(445)}… [1555 characters cut]`);
    assert.ok(budget.spent);
    assert.equal(budget.text('/path'), '… [5 characters cut]');
  });

  it('cuts a text at MAX_KEPT_TEXT bytes of JSON, not characters', () => {
    const cases: [string, string, number][] = [
      ['é (2 bytes)', 'é', MAX_KEPT_TEXT / 2],
      ['€ (3 bytes)', '€', Math.floor(MAX_KEPT_TEXT / 3)],
      ['a control character (6 bytes as \\u0001)', '\u0001', Math.floor(MAX_KEPT_TEXT / 6)],
      ['a quote (2 bytes as \\")', '"', MAX_KEPT_TEXT / 2],
    ];
    for (const [name, character, kept] of cases) {
      const text = character.repeat(MAX_KEPT_TEXT);
      assert.equal(new ProfileBudget(mask).text(text), `${character.repeat(kept)}… [${MAX_KEPT_TEXT - kept} characters cut]`, name);
    }
  });

  it('never cuts between the two halves of a surrogate pair', () => {
    const kept = new ProfileBudget(mask).text(`a${'😀'.repeat(MAX_KEPT_TEXT)}`);
    assert.equal(kept, `a${'😀'.repeat((MAX_KEPT_TEXT - 4) / 4)}… [${2 * MAX_KEPT_TEXT + 1 - (1 + 2 * ((MAX_KEPT_TEXT - 4) / 4))} characters cut]`);
  });

  it('keeps nothing beyond MAX_KEPT_DEPTH as structure: a deeper container is its JSON text', () => {
    const kept = new ProfileBudget(mask).value({ a: [{ b: { c: 'hunter2' } }] });
    assert.deepEqual(kept, { a: [{ b: '{"c":"******"}' }] });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_REMEMBERED_ACCEPTS, createNegotiator, negotiate, parseAccept } from '../../src/http/negotiation.js';

describe('parseAccept', () => {
  it('reads types and q-values, lower-cased', () => {
    assert.deepEqual(parseAccept('Text/HTML;level=1;q=0.5, application/json'), [
      { type: 'text', subtype: 'html', q: 0.5 },
      { type: 'application', subtype: 'json', q: 1 },
    ]);
  });
  it('skips malformed ranges and clamps q', () => {
    assert.deepEqual(parseAccept('nonsense, /x, a/b;q=7, c/d;q=abc'), [
      { type: 'a', subtype: 'b', q: 1 },
      { type: 'c', subtype: 'd', q: 0 },
    ]);
  });
});

describe('negotiate', () => {
  it('prefers HTML on a tie', () => assert.equal(negotiate('text/html, application/json'), 'html'));
  it('honours q-values', () => assert.equal(negotiate('text/html;q=0.9, application/json'), 'json'));
  it('lets a specific range override a wildcard', () => assert.equal(negotiate('*/*;q=0.1, application/json'), 'json'));
  it('treats text/html;q=0 as refused', () => assert.equal(negotiate('text/html;q=0, application/problem+json;q=0.1'), 'json'));
  it('gives HTML for no Accept', () => assert.equal(negotiate(undefined), 'html'));
  it('gives JSON for application/ld+json', () => assert.equal(negotiate('application/ld+json'), 'json'));
});

describe('createNegotiator', () => {
  it('answers each Accept by its own ranges, whichever it answered before', () => {
    const remembering = createNegotiator();
    for (const [accept, expected] of [
      ['application/json', 'json'],
      ['application/json;q=0.1, text/html', 'html'],
      ['application/json', 'json'],
      ['text/html', 'html'],
      [undefined, 'html'],
      ['application/problem+json', 'json'],
    ] as const) {
      assert.equal(remembering(accept), expected, `Accept: ${accept}`);
    }
  });

  it('still answers right once more than MAX_REMEMBERED_ACCEPTS distinct headers came', () => {
    const remembering = createNegotiator();
    assert.equal(remembering('application/json'), 'json', 'first');
    for (let i = 0; i <= MAX_REMEMBERED_ACCEPTS; i++) remembering(`text/html, application/x-${i}+json;q=0.5`);
    assert.equal(remembering('application/json'), 'json', 'after the bound');
    assert.equal(remembering(`text/html;q=0.1, application/x-0+json;q=0.5`), 'json', 'a new one');
  });
});

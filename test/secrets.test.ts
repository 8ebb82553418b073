import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecretMasker, maskText, secretValuesOf } from '../src/secrets.js';
import { testConfig } from './helpers/service.js';

describe('secretValuesOf', () => {
  it('lists the configured values of 4+ characters, longest first', () => {
    const config = testConfig({ APP_SECRET: 'abcd', APP_KEY: 'abcdefgh' });
    assert.deepEqual(secretValuesOf(config), ['abcdefgh', 'abcd']);
  });
});

describe('createSecretMasker', () => {
  it('masks the longer of two overlapping secrets whole', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: 'abcd', APP_KEY: 'abcdefgh' }));
    assert.equal(mask('x abcdefgh y abcd'), 'x ****** y ******');
  });
  it('takes a secret with pattern characters literally', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: 'a.b*|(c', APP_KEY: '^[x]+$\\' }));
    assert.equal(mask('1 a.b*|(c 2 ^[x]+$\\ 3'), '1 ****** 2 ****** 3');
    assert.equal(mask('axbbb|(c xx a'), 'axbbb|(c xx a');
  });
  it('masks a text exactly as long as the shortest secret', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: 'abcd', APP_KEY: 'abcdefgh' }));
    assert.equal(mask('abc'), 'abc');
    assert.equal(mask('abcd'), '******');
    assert.equal(mask('x abcd'), 'x ******');
  });
  it('scans a 16 KiB text of near-misses whole: unchanged, and masked where a secret ends it', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: `${'a'.repeat(29)}b`, APP_KEY: `${'a'.repeat(99)}g` }));
    const nearMisses = 'a'.repeat(16_384);
    assert.equal(mask(nearMisses), nearMisses);
    assert.equal(mask(`${nearMisses}b`), `${'a'.repeat(16_384 - 29)}******`);
  });
  it('is the identity without secrets', () => {
    const mask = createSecretMasker(testConfig());
    assert.equal(mask('nothing to hide'), 'nothing to hide');
  });
  it('maskText leaves text without a secret as it is', () => assert.equal(maskText('plain', ['secret-x']), 'plain'));
});

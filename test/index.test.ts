import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as api from '../src/index.js';

describe('the library API', () => {
  it('exports the documented entry points', () => {
    for (const name of [
      'startServer', 'createApp', 'loadConfig', 'parseConfig', 'ConfigError', 'Problem', 'createStreamLogger', 'formatLine',
      'formatTimestamp', 'createFileLogger', 'logFileName', 'nextMidnight', 'pruneList', 'encodeJpeg', 'renderPoster',
      'writePoster', 'validatePosterSpec', 'issueToken', 'verifyToken', 'loadKeyPair', 'generateKeyPairPem',
    ]) {
      assert.equal(typeof (api as Record<string, unknown>)[name], 'function', name);
    }
    assert.equal(api.POSTER_WIDTH, 1125);
    assert.equal(api.POSTER_HEIGHT, 2436);
  });

  it('encodes a 1x1 grey image into a JFIF file', () => {
    const bytes = api.encodeJpeg({ width: 1, height: 1, data: new Uint8Array([128]), channels: 1 });
    assert.deepEqual([...bytes.subarray(0, 4)], [0xff, 0xd8, 0xff, 0xe0]);
    assert.deepEqual([...bytes.subarray(-2)], [0xff, 0xd9]);
  });

  it('validates a poster spec, reporting problems with pointers', () => {
    const result = api.validatePosterSpec({ title: '' });
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.errors.some((e) => e.pointer === '/title'));
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as api from '../src/index.js';
import { ROOT } from './helpers/checkout.js';

describe('the library API', () => {
  it('exports exactly the documented names, each a function or a constant of its kind', () => {
    const functions = [
      'checkPosterSpec', 'ConfigError', 'createApp', 'createFileLogger', 'createPosterRenderer', 'createStreamLogger', 'encodeJpeg', 'generateKeyPairPem',
      'issueToken', 'loadConfig', 'loadKeyPair', 'parseConfig', 'posterFileName', 'posterSchema', 'PosterSpecError', 'Problem',
      'renderPoster', 'startServer', 'validatePosterSpec', 'verifyToken', 'writePoster',
    ];
    const constants = ['POSTER_HEIGHT', 'POSTER_WIDTH', 'RENDERER_VERSION'];
    assert.deepEqual(Object.keys(api).sort(), [...functions, ...constants].sort());
    for (const name of functions) assert.equal(typeof (api as Record<string, unknown>)[name], 'function', name);
    assert.equal(api.POSTER_WIDTH, 1125);
    assert.equal(api.POSTER_HEIGHT, 2436);
    assert.equal(typeof api.RENDERER_VERSION, 'string');
  });

  it('names every export in docs/library.md, above its examples', () => {
    const page = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');
    const list = page.slice(0, page.indexOf('\n## '));
    for (const name of Object.keys(api)) assert.ok(list.includes(`\`${name}`), `docs/library.md does not name ${name} in its list`);
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

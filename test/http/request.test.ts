import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNamespace } from '../../src/config/config.js';
import { InvalidMethodOverride } from '../../src/http/problems.js';
import { decodeUtf8, effectiveMethod, parseTarget, underNamespace } from '../../src/http/request.js';
import { splitPath } from '../../src/core/router.js';

describe('parseTarget', () => {
  const cases: [string, string, string, string | undefined, boolean][] = [
    ['/', '/', '', undefined, true],
    ['/a/b?x=1&y=2', '/a/b', 'x=1&y=2', undefined, true],
    ['/a#frag?x', '/a', '', undefined, true],
    ['/a?x=1#frag', '/a', 'x=1', undefined, true],
    ['http://h.example/x?y', '/x', 'y', 'h.example', true],
    ['https://h.example', '/', '', 'h.example', true],
    ['http://h.example?x=1', '/', 'x=1', 'h.example', true],
    ['http://h.example:8080#f', '/', '', 'h.example:8080', true],
    ['*', '*', '', undefined, true],
    ['//x', '//x', '', undefined, true],
    ['example.org:443', 'example.org:443', '', undefined, false],
    ['x?y', 'x', 'y', undefined, false],
  ];
  for (const [target, rawPath, query, authority, valid] of cases) {
    it(`splits ${target} into ${rawPath}, "${query}" and authority ${authority ?? 'none'}`, () => {
      assert.deepEqual(parseTarget(target), { rawPath, query, authority, valid }, target);
    });
  }
});

describe('decodeUtf8', () => {
  it('reads latin1-decoded header bytes as UTF-8', () => assert.equal(decodeUtf8('https://example.com/\u00c3\u00bc'), 'https://example.com/ü'));
  it('turns an invalid byte into U+FFFD', () => assert.equal(decodeUtf8('a\u0080b'), 'a\ufffdb'));
  it('leaves ASCII as it is', () => assert.equal(decodeUtf8('/plain?x=1'), '/plain?x=1'));
});

describe('effectiveMethod', () => {
  it('tunnels a POST', () => assert.deepEqual(effectiveMethod('POST', 'delete'), { ok: true, value: 'DELETE' }));
  it('ignores the header on other methods', () => assert.deepEqual(effectiveMethod('PUT', 'DELETE'), { ok: true, value: 'PUT' }));
  it('ignores an empty header', () => assert.deepEqual(effectiveMethod('POST', ''), { ok: true, value: 'POST' }));
  it('ignores a missing header', () => assert.deepEqual(effectiveMethod('POST', undefined), { ok: true, value: 'POST' }));
  it('refuses anything but letters', () => {
    for (const override of ['GE T', 'GET\u0130']) {
      const result = effectiveMethod('POST', override);
      assert.ok(!result.ok && result.problem instanceof InvalidMethodOverride, override);
    }
  });
});

describe('underNamespace', () => {
  const api = parseNamespace('SERVICE_BASE', '/api/');
  it('puts /api/x in the /api/ namespace', () => assert.equal(underNamespace(api)('/api/x', splitPath('/api/x')), true));
  it('puts /api/ itself in it', () => assert.equal(underNamespace(api)('/api/', splitPath('/api/')), true));
  it('leaves /api outside', () => assert.equal(underNamespace(api)('/api', splitPath('/api')), false));
  it('leaves /apix/y outside', () => assert.equal(underNamespace(api)('/apix/y', splitPath('/apix/y')), false));
  it('decodes before comparing', () => assert.equal(underNamespace(api)('/%61pi/x', splitPath('/%61pi/x')), true));
  it('falls back to the raw prefix for an undecodable path', () => assert.equal(underNamespace(api)('/api/%zz', undefined), true));
  it('puts everything under /', () => assert.equal(underNamespace(parseNamespace('X', '/'))('/x', ['x']), true));
});

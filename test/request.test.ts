import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNamespace } from '../src/config.js';
import { InvalidMethodOverride } from '../src/problem.js';
import { effectiveMethod, isUnder, parseTarget } from '../src/request.js';
import { splitPath } from '../src/router.js';

describe('parseTarget', () => {
  const cases: [string, string, string][] = [
    ['/', '/', ''],
    ['/a/b?x=1&y=2', '/a/b', 'x=1&y=2'],
    ['/a#frag?x', '/a', ''],
    ['/a?x=1#frag', '/a', 'x=1'],
    ['http://h.example/x?y', '/x', 'y'],
    ['https://h.example', '/', ''],
    ['*', '*', ''],
    ['//x', '//x', ''],
  ];
  for (const [target, rawPath, query] of cases) {
    it(`splits ${target} into ${rawPath} and "${query}"`, () => {
      assert.deepEqual(parseTarget(target), { rawPath, query }, target);
    });
  }
});

describe('effectiveMethod', () => {
  it('tunnels a POST', () => assert.equal(effectiveMethod('POST', 'delete'), 'DELETE'));
  it('ignores the header on other methods', () => assert.equal(effectiveMethod('PUT', 'DELETE'), 'PUT'));
  it('ignores an empty header', () => assert.equal(effectiveMethod('POST', ''), 'POST'));
  it('ignores a missing header', () => assert.equal(effectiveMethod('POST', undefined), 'POST'));
  it('refuses anything but letters', () => {
    assert.ok(effectiveMethod('POST', 'GE T') instanceof InvalidMethodOverride);
    assert.ok(effectiveMethod('POST', 'GET\u0130') instanceof InvalidMethodOverride);
  });
});

describe('isUnder', () => {
  const api = parseNamespace('SERVICE_BASE', '/api/');
  it('puts /api/x in the /api/ namespace', () => assert.equal(isUnder(api, '/api/x', splitPath('/api/x')), true));
  it('puts /api/ itself in it', () => assert.equal(isUnder(api, '/api/', splitPath('/api/')), true));
  it('leaves /api outside', () => assert.equal(isUnder(api, '/api', splitPath('/api')), false));
  it('leaves /apix/y outside', () => assert.equal(isUnder(api, '/apix/y', splitPath('/apix/y')), false));
  it('decodes before comparing', () => assert.equal(isUnder(api, '/%61pi/x', splitPath('/%61pi/x')), true));
  it('falls back to the raw prefix for an undecodable path', () => assert.equal(isUnder(api, '/api/%zz', undefined), true));
  it('puts everything under /', () => assert.equal(isUnder(parseNamespace('X', '/'), '/x', ['x']), true));
});

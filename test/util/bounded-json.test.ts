import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBoundedJson } from '../../src/util/bounded-json.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('parseBoundedJson', () => {
  it('parses JSON nested exactly maxDepth deep', () => {
    assert.deepEqual(parseBoundedJson(nested(3), 3), { ok: true, value: [[[]]] });
    assert.deepEqual(parseBoundedJson('{"a":[{"b":1}]}', 3), { ok: true, value: { a: [{ b: 1 }] } });
  });

  it('refuses JSON nested maxDepth + 1 deep, saying so', () => {
    assert.deepEqual(parseBoundedJson(nested(4), 3), { ok: false, problem: 'nested deeper than 3 levels' });
    assert.deepEqual(parseBoundedJson('{"a":[{"b":[]}]}', 3), { ok: false, problem: 'nested deeper than 3 levels' });
  });

  it('refuses 100,000 levels as too deep, not as a stack overflow', () => {
    assert.deepEqual(parseBoundedJson(nested(100_000), 32), { ok: false, problem: 'nested deeper than 32 levels' });
  });

  it('parses a scalar at depth 0', () => {
    assert.deepEqual(parseBoundedJson(' "text" ', 0), { ok: true, value: 'text' });
    assert.deepEqual(parseBoundedJson('[]', 0), { ok: false, problem: 'nested deeper than 0 levels' });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    assert.deepEqual(parseBoundedJson('["[[[{{{", "\\"[[[", "\\\\", "]]]"]', 1), { ok: true, value: ['[[[{{{', '"[[[', '\\', ']]]'] });
    assert.deepEqual(parseBoundedJson('{"\\"{": {"x": 1}}', 1), { ok: false, problem: 'nested deeper than 1 levels' });
  });

  it('gives the parser\'s reason for text that is not JSON', () => {
    const result = parseBoundedJson('{"name": ', 8);
    assert.equal(result.ok, false);
    assert.match(String(!result.ok && result.problem), /JSON/);
  });
});

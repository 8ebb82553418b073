/**
 * The poster spec's JSON Schema and the service's validator agree: the same valid and invalid
 * specs go through `validatePosterSpec` and through an independent JSON Schema 2020-12
 * validator (Debian's python3-jsonschema).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { posterSchema } from '../../src/render/schema.js';
import { validatePosterSpec } from '../../src/render/spec.js';
import { runProgram } from '../helpers/programs.js';

/** Debian's interpreter, which sees Debian's python3-jsonschema. */
const PYTHON = '/usr/bin/python3';

const VALIDATE = `
import json, sys
from jsonschema import Draft202012Validator
data = json.load(sys.stdin)
Draft202012Validator.check_schema(data["schema"])
validator = Draft202012Validator(data["schema"])
print(json.dumps([validator.is_valid(instance) for instance in data["instances"]]))
`;

const circle = { kind: 'circle', cx: 10, cy: 10, r: 5, color: '#ffffff' };
const cases: [string, unknown, boolean][] = [
  ['a title alone', { title: 'Hola' }, true],
  ['every member', {
    title: 'Año Nuevo', subtitle: 'Señor', body: 'línea 1\nlínea 2\r\nlínea 3', align: 'left',
    background: { from: '#000000', to: '#FFFFFF', angle: 90 }, textColor: '#abcdef', accentColor: '#123456',
    shapes: [
      { kind: 'rect', x: -5, y: 0, width: 100, height: 50, radius: 8, color: '#ff0000', opacity: 0.5 },
      circle,
      { kind: 'line', x1: 0, y1: 0, x2: 1125, y2: 2436, width: 3, color: '#00ff00' },
    ],
    quality: 100,
  }, true],
  ['no shapes at all', { title: 'x', shapes: [] }, true],
  ['32 shapes', { title: 'x', shapes: Array(32).fill(circle) }, true],
  ['a 120-character title', { title: 'é'.repeat(120) }, true],
  ['no title', {}, false],
  ['an empty title', { title: '' }, false],
  ['a title of spaces', { title: '   ' }, false],
  ['a 121-character title', { title: 'a'.repeat(121) }, false],
  ['a line break in the title', { title: 'a\nb' }, false],
  ['a tab in the subtitle', { subtitle: 'a\tb', title: 'x' }, false],
  ['a control character in the body', { title: 'x', body: 'a\u0007b' }, false],
  ['a body of 1,001 characters', { title: 'x', body: 'b'.repeat(1001) }, false],
  ['an unknown member', { title: 'x', colour: '#ffffff' }, false],
  ['a colour without #', { title: 'x', textColor: 'ffffff' }, false],
  ['a three-digit colour', { title: 'x', accentColor: '#fff' }, false],
  ['an unknown align', { title: 'x', align: 'right' }, false],
  ['a background without to', { title: 'x', background: { from: '#000000' } }, false],
  ['an angle over 360', { title: 'x', background: { from: '#000000', to: '#111111', angle: 361 } }, false],
  ['a fractional quality', { title: 'x', quality: 80.5 }, false],
  ['quality 0', { title: 'x', quality: 0 }, false],
  ['33 shapes', { title: 'x', shapes: Array(33).fill(circle) }, false],
  ['a shape without kind', { title: 'x', shapes: [{ type: 'circle', cx: 1, cy: 1, r: 1, color: '#ffffff' }] }, false],
  ['an unknown kind', { title: 'x', shapes: [{ kind: 'star', color: '#ffffff' }] }, false],
  ['a circle of radius 0', { title: 'x', shapes: [{ ...circle, r: 0 }] }, false],
  ['a circle with a rect member', { title: 'x', shapes: [{ ...circle, width: 3 }] }, false],
  ['a coordinate past 10,000', { title: 'x', shapes: [{ ...circle, cx: 10_001 }] }, false],
  ['an opacity over 1', { title: 'x', shapes: [{ ...circle, opacity: 1.5 }] }, false],
  ['a line 1,001 pixels wide', { title: 'x', shapes: [{ kind: 'line', x1: 0, y1: 0, x2: 1, y2: 1, width: 1001, color: '#000000' }] }, false],
  ['an array', [{ title: 'x' }], false],
];

describe('the poster spec schema', () => {
  let verdicts: boolean[] = [];
  before(async () => {
    const input = JSON.stringify({ schema: posterSchema('https://example.org/schema/1.0/poster.json'), instances: cases.map(([, spec]) => spec) });
    const result = await runProgram(PYTHON, ['-c', VALIDATE], input);
    assert.equal(result.code, 0, result.stderr);
    verdicts = JSON.parse(result.stdout.toString('utf8')) as boolean[];
    assert.equal(verdicts.length, cases.length);
  });

  cases.forEach(([name, spec, valid], i) => {
    it(`agrees with the validator on ${name} (${valid ? 'valid' : 'invalid'})`, () => {
      assert.equal(validatePosterSpec(spec).ok, valid, `validator on ${name}`);
      assert.equal(verdicts[i], valid, `JSON Schema on ${name}`);
    });
  });
});

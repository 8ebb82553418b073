import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalJson, DEFAULTS, defaultShapes, pointerTo, validatePosterSpec, type PosterSpec, type SpecError,
} from '../../src/render/spec.js';
import { checkPosterSpec, PosterSpecError } from '../../src/poster/library.js';

/** The problems of an input that must not validate. */
function problems(input: unknown): readonly SpecError[] {
  const result = validatePosterSpec(input);
  assert.equal(result.ok, false, `expected problems for ${JSON.stringify(input)}`);
  return result.ok ? [] : result.errors;
}

/** The normalised spec of an input that must validate. */
function valid(input: unknown): PosterSpec {
  const result = validatePosterSpec(input);
  assert.ok(result.ok, `expected a valid spec, got ${JSON.stringify(!result.ok && result.errors)}`);
  return result.value;
}

/** Asserts that exactly these pointers are reported, and each reason matches. */
function assertProblems(input: unknown, expected: Array<[pointer: string, reason: RegExp]>, name: string): void {
  const errors = problems(input);
  assert.deepEqual(errors.map((e) => e.pointer), expected.map(([p]) => p), `${name}: pointers`);
  expected.forEach(([, reason], i) => assert.match(errors[i].reason, reason, `${name}: reason of ${expected[i][0]}`));
}

const shape = (extra: Record<string, unknown>) => ({ title: 'T', shapes: [extra] });

describe('validatePosterSpec: the document', () => {
  it('refuses anything but a JSON object, at the root pointer', () => {
    for (const input of [null, [], 'title', 42, undefined]) {
      assert.deepEqual(problems(input), [{ pointer: '', reason: 'must be a JSON object' }], `input ${JSON.stringify(input)}`);
    }
  });

  it('reports unknown members with escaped pointers', () => {
    assertProblems({ title: 'T', colour: '#ffffff', 'a/b~c': 1 }, [['/colour', /not a known member/], ['/a~1b~0c', /not a known member/]], 'unknown members');
  });

  it('reports every problem at once, unknown members first, then in the spec’s order', () => {
    const errors = problems({
      title: '', subtitle: 3, body: 'a\tb', align: 'right', background: { from: 'red' }, textColor: '#12345', accentColor: null,
      shapes: [{ kind: 'star' }, { kind: 'circle', cx: 1, cy: 2, r: -1, color: '#fff' }], quality: 0, extra: true,
    });
    assert.deepEqual(errors.map((e) => e.pointer), [
      '/extra', '/title', '/subtitle', '/body', '/align', '/background/from', '/background/to', '/textColor', '/accentColor',
      '/shapes/0/kind', '/shapes/1/r', '/shapes/1/color', '/quality',
    ], 'all pointers');
    assert.ok(errors.every((e) => typeof e.reason === 'string' && e.reason.length > 0), 'every problem has a reason');
  });
});

describe('the list of spec errors', () => {
  it('is called errors by the validator, as by PosterSpecError and the API\'s 422', () => {
    const input = { title: '', quality: 0 };
    const result = validatePosterSpec(input);
    assert.deepEqual(Object.keys(result), ['ok', 'errors'], 'members of a failed validation');
    const thrown = (() => {
      try {
        checkPosterSpec(input);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    assert.ok(thrown instanceof PosterSpecError, 'checkPosterSpec throws PosterSpecError');
    assert.deepEqual(!result.ok && result.errors, thrown.errors, 'the same list under the same name');
  });
});

describe('validatePosterSpec: text members', () => {
  it('requires a title', () => {
    assertProblems({}, [['/title', /^is required$/]], 'missing title');
  });

  it('refuses a title that is not a string, blank, or longer than 120 characters', () => {
    assertProblems({ title: 7 }, [['/title', /must be a string/]], 'number title');
    assertProblems({ title: '   ' }, [['/title', /not only spaces/]], 'blank title');
    assertProblems({ title: 'x'.repeat(121) }, [['/title', /at most 120 characters \(it has 121\)/]], '121 characters');
  });

  it('counts characters, not UTF-16 units: 120 emoji are a valid title', () => {
    assert.equal(valid({ title: '😀'.repeat(120) }).title.length, 240, '120 astral characters accepted');
  });

  it('refuses line breaks and control characters in title and subtitle', () => {
    assertProblems({ title: 'a\nb' }, [['/title', /control characters or line breaks/]], 'newline in title');
    assertProblems({ title: 'T', subtitle: 'a\u0007b' }, [['/subtitle', /control characters/]], 'BEL in subtitle');
  });

  it('refuses lone surrogates (not encodable as UTF-8)', () => {
    assertProblems({ title: 'a\ud800b' }, [['/title', /lone surrogate/]], 'lone surrogate');
  });

  it('limits the subtitle to 200 and the body to 1,000 characters', () => {
    assertProblems({ title: 'T', subtitle: 's'.repeat(201) }, [['/subtitle', /at most 200/]], 'long subtitle');
    assertProblems({ title: 'T', body: 'b'.repeat(1001) }, [['/body', /at most 1000/]], 'long body');
    assert.equal(valid({ title: 'T', body: 'b'.repeat(1000) }).body.length, 1000, '1,000 accepted');
  });

  it('allows line breaks in the body, normalising CR LF and CR to LF, but no other controls', () => {
    assert.equal(valid({ title: 'T', body: 'uno\r\ndos\rtres\ncuatro' }).body, 'uno\ndos\ntres\ncuatro', 'line breaks');
    assertProblems({ title: 'T', body: 'a\tb' }, [['/body', /other than line breaks/]], 'tab in body');
  });

  it('normalises text to NFC', () => {
    assert.equal(valid({ title: 'An\u0303o' }).title, 'Año', 'composed ñ');
  });
});

describe('validatePosterSpec: colours, background, align and quality', () => {
  it('applies the defaults', () => {
    const spec = valid({ title: 'Hola' });
    assert.deepEqual(spec, {
      title: 'Hola', subtitle: '', body: '', align: 'center', background: DEFAULTS.background,
      textColor: DEFAULTS.textColor, accentColor: DEFAULTS.accentColor, shapes: defaultShapes(DEFAULTS.textColor, DEFAULTS.accentColor), quality: 85,
    }, 'defaults');
  });

  it('lower-cases colours and accepts a background with its own angle', () => {
    const spec = valid({ title: 'T', textColor: '#ABCDEF', background: { from: '#000000', to: '#FFFFFF', angle: 90 } });
    assert.equal(spec.textColor, '#abcdef', 'text colour');
    assert.deepEqual(spec.background, { from: '#000000', to: '#ffffff', angle: 90 }, 'background');
  });

  it('refuses colours that are not #rrggbb', () => {
    for (const color of ['#fff', 'red', '#1234567', 'ffffff', '#gggggg', 0]) {
      assertProblems({ title: 'T', accentColor: color }, [['/accentColor', /#rrggbb/]], `accentColor ${JSON.stringify(color)}`);
    }
  });

  it('checks the background object: members, both colours, angle 0..360', () => {
    assertProblems({ title: 'T', background: '#000000' }, [['/background', /must be an object/]], 'string background');
    assertProblems({ title: 'T', background: { to: '#000000', angle: 400, x: 1 } }, [
      ['/background/x', /not a known member/], ['/background/from', /is required/], ['/background/angle', /at most 360/],
    ], 'bad background');
    assertProblems({ title: 'T', background: { from: '#000000', to: '#000000', angle: '90' } }, [['/background/angle', /must be a number/]], 'string angle');
  });

  it('accepts only center or left alignment', () => {
    assert.equal(valid({ title: 'T', align: 'left' }).align, 'left', 'left');
    assertProblems({ title: 'T', align: 'justify' }, [['/align', /"center", "left"/]], 'justify');
  });

  it('accepts an integer quality 1..100 only', () => {
    assert.equal(valid({ title: 'T', quality: 100 }).quality, 100, 'quality 100');
    assertProblems({ title: 'T', quality: 101 }, [['/quality', /at most 100/]], 'quality 101');
    assertProblems({ title: 'T', quality: 0 }, [['/quality', /at least 1/]], 'quality 0');
    assertProblems({ title: 'T', quality: 85.5 }, [['/quality', /integer/]], 'quality 85.5');
    assertProblems({ title: 'T', quality: '85' }, [['/quality', /must be a number/]], 'quality "85"');
  });
});

describe('validatePosterSpec: shapes', () => {
  it('fills in radius and opacity and keeps an empty list empty', () => {
    const spec = valid(shape({ kind: 'rect', x: 1, y: 2, width: 3, height: 4, color: '#FF0000' }));
    assert.deepEqual(spec.shapes, [{ kind: 'rect', x: 1, y: 2, width: 3, height: 4, color: '#ff0000', radius: 0, opacity: 1 }], 'rect');
    assert.deepEqual(valid({ title: 'T', shapes: [] }).shapes, [], 'no shapes');
  });

  it('accepts a circle and a line with their fields', () => {
    const spec = valid({ title: 'T', shapes: [
      { kind: 'circle', cx: 10, cy: 20, r: 5, color: '#00ff00', opacity: 0.5 },
      { kind: 'line', x1: 0, y1: 0, x2: 100, y2: 50, width: 2, color: '#0000ff' },
    ] });
    assert.deepEqual(spec.shapes.map((s) => s.kind), ['circle', 'line'], 'kinds');
  });

  it('refuses a list that is not an array or has more than 32 shapes', () => {
    assertProblems({ title: 'T', shapes: {} }, [['/shapes', /must be an array/]], 'object shapes');
    const many = Array.from({ length: 33 }, () => ({ kind: 'circle', cx: 0, cy: 0, r: 1, color: '#000000' }));
    assertProblems({ title: 'T', shapes: many }, [['/shapes', /at most 32 items \(it has 33\)/]], '33 shapes');
  });

  it('requires a known kind on every item', () => {
    assertProblems({ title: 'T', shapes: ['rect'] }, [['/shapes/0', /must be an object/]], 'string item');
    assertProblems(shape({ x: 1 }), [['/shapes/0/kind', /is required/]], 'no kind');
    assertProblems(shape({ kind: 'triangle' }), [['/shapes/0/kind', /"rect", "circle", "line"/]], 'unknown kind');
  });

  it('reports members that do not belong to the kind, and missing ones', () => {
    assertProblems(shape({ kind: 'rect', x: 0, y: 0, r: 3, color: '#000000' }), [
      ['/shapes/0/r', /not a known member/], ['/shapes/0/width', /is required/], ['/shapes/0/height', /is required/],
    ], 'rect with r');
    assertProblems(shape({ kind: 'line', x1: 0, y1: 0, x2: 1, y2: 1, width: 1 }), [['/shapes/0/color', /is required/]], 'line without colour');
  });

  it('checks numbers: finite, sizes above 0, coordinates within ±10,000, opacity 0..1', () => {
    assertProblems(shape({ kind: 'circle', cx: 'a', cy: 20_000, r: 0, color: '#000000', opacity: 1.5 }), [
      ['/shapes/0/cx', /must be a number/], ['/shapes/0/cy', /at most 10000/], ['/shapes/0/r', /greater than 0/], ['/shapes/0/opacity', /at most 1/],
    ], 'bad circle');
    assertProblems(shape({ kind: 'line', x1: 0, y1: 0, x2: 1, y2: 1, width: 1001, color: '#000000' }), [['/shapes/0/width', /at most 1000/]], 'wide line');
    assertProblems(shape({ kind: 'rect', x: 0, y: 0, width: 5, height: 5, radius: -1, color: '#000000' }), [['/shapes/0/radius', /at least 0/]], 'negative radius');
  });
});

describe('normalised specs', () => {
  it('validate to themselves (the render worker re-validates them)', () => {
    const spec = valid({ title: ' Año ', body: 'a\r\nb', accentColor: '#ABCDEF', shapes: [{ kind: 'line', x1: -0, y1: 0, x2: 1, y2: 1, width: 1, color: '#000000' }] });
    assert.deepEqual(valid(spec), spec, 'idempotent');
    assert.equal(Object.is((spec.shapes[0] as { x1: number }).x1, -0), false, '-0 became 0');
  });

  it('have one canonical JSON text whatever the key order', () => {
    const a = valid({ title: 'T', subtitle: 'S', background: { from: '#000000', to: '#111111' } });
    const b = valid({ background: { to: '#111111', from: '#000000' }, subtitle: 'S', title: 'T' });
    assert.equal(canonicalJson(a), canonicalJson(b), 'same canonical text');
    assert.match(canonicalJson(a), /^\{"accentColor":/, 'keys sorted');
  });
});

describe('pointerTo', () => {
  it('escapes ~ and / as RFC 6901 says', () => {
    assert.equal(pointerTo('/shapes', 3), '/shapes/3', 'index');
    assert.equal(pointerTo('', 'a~/b'), '/a~0~1b', 'escaped');
  });
});

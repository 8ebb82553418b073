import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drawBackground, planText, POSTER_HEIGHT, POSTER_WIDTH, type TextPlan } from '../../src/render/design.js';
import { Canvas } from '../../src/render/draw/canvas.js';
import { loadPosterFonts } from '../../src/poster/fonts.js';
import { validatePosterSpec, type PosterSpec, type PosterSpecInput } from '../../src/render/spec.js';

const fonts = await loadPosterFonts();

function spec(input: PosterSpecInput): PosterSpec {
  const checked = validatePosterSpec(input);
  assert.ok(checked.ok, 'test spec is valid');
  return checked.value;
}

/** Left and right pixel extents of every line of a plan. */
function extents(plan: TextPlan): Array<[number, number]> {
  return plan.blocks.flatMap((b) => b.lines.map((l) => {
    const w = (l.width * b.size) / b.font.unitsPerEm;
    const x = plan.align === 'center' ? (POSTER_WIDTH - w) / 2 : 100;
    return [x, x + w] as [number, number];
  }));
}

describe('planText', () => {
  it('stacks accent bar, title, subtitle and body top to bottom in decreasing sizes', () => {
    const plan = planText(spec({ title: 'Fiesta', subtitle: 'Sábado', body: 'Entrada libre' }), fonts);
    const [title, subtitle, body] = plan.blocks;
    assert.ok(plan.accentBar.y < title.firstBaseline - title.size * 0.76, 'bar above the title');
    assert.ok(title.firstBaseline < subtitle.firstBaseline && subtitle.firstBaseline < body.firstBaseline, 'order');
    assert.ok(title.size > subtitle.size && subtitle.size > body.size, `sizes ${title.size} > ${subtitle.size} > ${body.size}`);
    assert.equal(title.font, fonts.bold, 'bold title');
  });

  it('keeps every line inside the 100 px side margins', () => {
    const plan = planText(spec({ title: 'Una noche inolvidable de música y poesía en la plaza', body: 'texto '.repeat(150) }), fonts);
    for (const [i, [left, right]] of extents(plan).entries()) {
      assert.ok(left >= 100 - 1e-9 && right <= POSTER_WIDTH - 100 + 1e-9, `line ${i}: ${left}..${right}`);
    }
  });

  it('keeps a 1,000-character body above the bottom margin, cut with an ellipsis if needed', () => {
    const plan = planText(spec({ title: 'T', subtitle: 'S', body: 'palabra '.repeat(125).slice(0, 1000) }), fonts);
    const body = plan.blocks[2];
    const lastBaseline = body.firstBaseline + (body.lines.length - 1) * body.lineHeight;
    assert.ok(lastBaseline + body.size * 0.24 <= POSTER_HEIGHT - 200, `last baseline ${lastBaseline}`);
    const tooMuch = planText(spec({ title: 'T', body: 'x\n'.repeat(400).slice(0, 1000) }), fonts).blocks[1];
    assert.equal(tooMuch.lines.at(-1)!.glyphs.at(-1), fonts.regular.glyphIndex(0x2026), '500 short lines end in …');
  });

  it('aligns lines to the left margin when asked', () => {
    const plan = planText(spec({ title: 'Taller', body: 'uno\ndos', align: 'left' }), fonts);
    assert.equal(plan.accentBar.x, 100, 'bar at the margin');
    assert.equal(plan.align, 'left', 'align');
  });

  it('fits a short title at the largest size', () => {
    assert.equal(planText(spec({ title: 'Sí' }), fonts).blocks[0].size, 196, 'title size');
  });
});

describe('drawBackground', () => {
  it('paints the gradient and the shapes of the spec', () => {
    const canvas = drawBackground(spec({
      title: 'T', background: { from: '#000000', to: '#000000' },
      shapes: [{ kind: 'rect', x: 10, y: 10, width: 20, height: 20, color: '#ff0000' }],
    }));
    assert.deepEqual([canvas.width, canvas.height], [1125, 2436], 'poster size');
    assert.deepEqual(canvas.pixel(15, 15), [255, 0, 0], 'inside the rect');
    assert.deepEqual(canvas.pixel(500, 500), [0, 0, 0], 'background');
  });

  it('repaints a reused canvas completely, to the same pixels as a new one', () => {
    const first = spec({ title: 'A', shapes: [{ kind: 'circle', cx: 300, cy: 300, r: 200, color: '#ff0000' }] });
    const second = spec({ title: 'B', background: { from: '#102030', to: '#f0e0d0', angle: 90 } });
    const reused = drawBackground(first);
    assert.equal(drawBackground(second, reused), reused, 'draws on the given canvas');
    assert.ok(Buffer.from(reused.data).equals(Buffer.from(drawBackground(second).data)), 'nothing of the first poster left');
  });

  it('refuses a canvas of another size', () => {
    assert.throws(() => drawBackground(spec({ title: 'T' }), new Canvas(10, 10)), TypeError);
  });
});

/**
 * `createPosterRenderer`: a renderer for a run of posters gives `renderPoster`'s bytes, poster
 * after poster, whatever it rendered before, with either subsampling; what it hands out stays the
 * caller's. (How much memory a run saves is measured outside the fast tier: a peak RSS needs a
 * process of its own.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPosterRenderer, PosterSpecError, renderPoster } from '../../src/poster/library.js';

const PLAIN = { title: 'Hola' };
const ACCENTS = { title: 'Señor Ñandú', subtitle: 'Çà et là · 12 €', body: '“Año nuevo”,\nvida nueva.', align: 'left' as const };
const DARK = { title: 'Nit', background: { from: '#000000', to: '#202020', angle: 0 }, shapes: [], quality: 95 };

/** The sampling byte of each component in the SOF0 segment (0x11: full resolution, 0x22: halved both ways). */
function componentSampling(jpeg: Uint8Array): number[] {
  for (let i = 2; i + 9 < jpeg.length; i += 2 + ((jpeg[i + 2]! << 8) | jpeg[i + 3]!)) {
    if (jpeg[i + 1] === 0xc0) return Array.from({ length: jpeg[i + 9]! }, (_, c) => jpeg[i + 11 + c * 3]!);
  }
  throw new Error('no SOF0 marker');
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('createPosterRenderer', () => {
  it('renders a run of posters with the bytes renderPoster gives, at 4:4:4 by default', async () => {
    const renderer = createPosterRenderer();
    const accents = await renderer.render(ACCENTS);
    const dark = await renderer.render(DARK);
    const plain = await renderer.render(PLAIN);
    assert.ok(same(accents, await renderPoster(ACCENTS)), 'the accented poster, first of the run');
    assert.ok(same(dark, await renderPoster(DARK)), 'the dark poster, after the accented one');
    assert.ok(same(plain, await renderPoster(PLAIN)), 'the plain poster, after the dark one');
    assert.deepEqual(componentSampling(plain), [0x11, 0x11, 0x11], '4:4:4');
  });

  it('renders at 4:2:0 with the bytes renderPoster gives at 4:2:0', async () => {
    const renderer = createPosterRenderer({ subsampling: '4:2:0' });
    const dark = await renderer.render(DARK);
    const accents = await renderer.render(ACCENTS);
    assert.ok(same(dark, await renderPoster(DARK, { subsampling: '4:2:0' })), 'the dark poster');
    assert.ok(same(accents, await renderPoster(ACCENTS, { subsampling: '4:2:0' })), 'the accented poster, after the dark one');
    assert.deepEqual(componentSampling(accents), [0x22, 0x11, 0x11], '4:2:0: luma 2x2, chroma 1x1');
    assert.ok(!same(accents, await renderPoster(ACCENTS)), 'not the 4:4:4 bytes');
  });

  it('reuses its buffers without touching the bytes it handed out before', async () => {
    const renderer = createPosterRenderer();
    const first = await renderer.render(ACCENTS);
    const kept = Buffer.from(first);
    await renderer.render(DARK);
    const again = await renderer.render(ACCENTS);
    assert.ok(kept.equals(Buffer.from(first)), 'the first poster is unchanged after two more renders');
    assert.ok(same(again, first), 'the same spec again gives the same bytes');
    assert.notEqual(again.buffer, first.buffer, 'each poster has a buffer of its own');
  });

  it('gives each of several overlapping renders its own poster', async () => {
    const renderer = createPosterRenderer();
    const [plain, dark] = await Promise.all([renderer.render(PLAIN), renderer.render(DARK)]);
    assert.ok(same(plain, await renderPoster(PLAIN)), 'the plain poster');
    assert.ok(same(dark, await renderPoster(DARK)), 'the dark poster');
  });

  it('refuses an invalid spec with PosterSpecError, and renders the next one', async () => {
    const renderer = createPosterRenderer();
    await assert.rejects(renderer.render({ title: '', quality: 0 } as never), (err: unknown) => {
      assert.ok(err instanceof PosterSpecError, 'PosterSpecError');
      assert.deepEqual(err.errors.map((e) => e.pointer), ['/title', '/quality'], 'both problems');
      return true;
    });
    assert.ok(same(await renderer.render(PLAIN), await renderPoster(PLAIN)), 'the renderer still works');
  });

  it('refuses an unknown subsampling with a RangeError naming it', async () => {
    const renderer = createPosterRenderer({ subsampling: '4:1:1' as never });
    await assert.rejects(renderer.render(PLAIN), (err: unknown) => err instanceof RangeError && /subsampling/.test(err.message));
    await assert.rejects(renderPoster(PLAIN, { subsampling: '4:1:1' as never }), RangeError);
  });
});

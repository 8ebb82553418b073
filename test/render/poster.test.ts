import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loadPosterFonts } from '../../src/poster/fonts.js';
import { checkPosterSpec, posterFileName, PosterSpecError, renderPoster, writePoster } from '../../src/poster/library.js';
import { drawPoster, encodePoster, PosterRenderer, RENDERER_VERSION, renderPosterJpeg, renderPosterTimed } from '../../src/render/poster.js';
import { canonicalJson, validatePosterSpec } from '../../src/render/spec.js';

const SPEC = {
  title: 'Señor Ñandú',
  subtitle: 'Çà et là · 12 €',
  body: '“Año nuevo”,\nvida nueva.',
};

/** Frame header of a baseline JPEG: SOF0's size and each component's sampling byte. */
function readSof0(jpeg: Uint8Array): { width: number; height: number; sampling: number[] } {
  for (let i = 2; i + 9 < jpeg.length; ) {
    assert.equal(jpeg[i], 0xff, `marker expected at byte ${i}`);
    const marker = jpeg[i + 1];
    const length = (jpeg[i + 2] << 8) | jpeg[i + 3];
    if (marker === 0xc0) {
      const components = jpeg[i + 9];
      const sampling = Array.from({ length: components }, (_, c) => jpeg[i + 11 + c * 3]);
      return { height: (jpeg[i + 5] << 8) | jpeg[i + 6], width: (jpeg[i + 7] << 8) | jpeg[i + 8], sampling };
    }
    assert.notEqual(marker, 0xda, 'SOS before SOF0');
    i += 2 + length;
  }
  throw new Error('no SOF0 marker');
}

describe('renderPoster', () => {
  it('renders a 1125x2436 baseline JPEG with full-resolution chroma, the same bytes every time', async () => {
    // A clock one unit further at every reading: the plan takes a unit for the background's
    // paints and one for the text's, then each of the 39 bands of 64 rows one to paint the
    // background, one the text and one to encode, measured from the encoder's next request.
    let tick = 0;
    const clock = () => tick++;
    const timed = renderPosterTimed(checkPosterSpec(SPEC), await loadPosterFonts(), clock);
    const again = await renderPoster(SPEC);
    assert.deepEqual(timed.timings, { draw: 1 + 39, text: 1 + 39, encode: 39 + 1 }, 'stage timings from the injected clock');
    const bytes = timed.bytes;
    assert.deepEqual([bytes[0], bytes[1]], [0xff, 0xd8], 'SOI');
    assert.deepEqual([bytes.at(-2), bytes.at(-1)], [0xff, 0xd9], 'EOI');
    const sof = readSof0(bytes);
    assert.deepEqual([sof.width, sof.height], [1125, 2436], 'poster size');
    assert.deepEqual(sof.sampling, [0x11, 0x11, 0x11], '4:4:4: every component sampled 1x1');
    assert.ok(Buffer.from(bytes).equals(Buffer.from(again)), 'deterministic: same bytes for the same spec');
  });

  it('a PosterRenderer draws a run of posters with renderPosterJpeg\'s bytes, whatever the poster before', async () => {
    const fonts = await loadPosterFonts();
    const renderer = new PosterRenderer();
    const dark = checkPosterSpec({ ...SPEC, background: { from: '#000000', to: '#202020', angle: 0 }, quality: 95 });
    const plain = checkPosterSpec({ title: 'Hola' });
    const darkFirst = renderer.render(dark, fonts);
    const darkKept = darkFirst.slice();
    assert.ok(Buffer.from(renderer.render(plain, fonts)).equals(Buffer.from(renderPosterJpeg(plain, fonts))), 'the plain poster after the dark one');
    assert.ok(Buffer.from(renderer.render(dark, fonts)).equals(Buffer.from(renderPosterJpeg(dark, fonts))), 'the dark poster after the plain one');
    assert.ok(Buffer.from(darkFirst).equals(Buffer.from(darkKept)), 'an earlier poster stays untouched');
    renderer.release();
    assert.ok(Buffer.from(renderer.render(dark, fonts)).equals(Buffer.from(darkKept)), 'released, it encodes with new buffers');
  });

  it('paints band by band for the encoder the bytes of the whole canvas drawn, then encoded, at every subsampling', async () => {
    const fonts = await loadPosterFonts();
    const shapes = checkPosterSpec({
      ...SPEC,
      align: 'left',
      background: { from: '#fafafa', to: '#101010', angle: 37 },
      shapes: [
        { kind: 'circle', cx: -40.5, cy: 300.25, r: 260.7, color: '#22c55e', opacity: 0.6 },
        { kind: 'rect', x: 10.5, y: 2420.25, width: 300.5, height: 40.75, color: '#f59e0b', opacity: 0.5 },
        { kind: 'line', x1: 0, y1: 2436, x2: 1125, y2: 0, width: 3.5, color: '#ef4444', opacity: 0.7 },
      ],
    });
    for (const spec of [checkPosterSpec(SPEC), shapes]) {
      const whole = drawPoster(spec, fonts);
      for (const subsampling of ['4:4:4', '4:2:2', '4:2:0'] as const) {
        const banded = new PosterRenderer(subsampling).render(spec, fonts);
        assert.ok(Buffer.from(banded).equals(Buffer.from(encodePoster(whole, spec.quality, subsampling))), `${spec.title}, ${subsampling}`);
      }
    }
  });

  it('throws PosterSpecError listing every problem for an invalid spec', async () => {
    await assert.rejects(renderPoster({ title: '', quality: 0 } as never), (err: unknown) => {
      assert.ok(err instanceof PosterSpecError, 'PosterSpecError');
      assert.deepEqual(err.errors.map((e) => e.pointer), ['/title', '/quality'], 'both problems');
      return true;
    });
  });
});

describe('posterFileName', () => {
  it('hashes the renderer version with the canonical spec: sha256, 32 hex digits', () => {
    const checked = validatePosterSpec(SPEC);
    assert.ok(checked.ok, 'valid');
    const expected = createHash('sha256').update(`poster renderer ${RENDERER_VERSION}\n${canonicalJson(checked.value)}`).digest('hex').slice(0, 32);
    assert.equal(posterFileName(SPEC), `${expected}.jpg`, 'name');
    assert.match(posterFileName(SPEC), /^[0-9a-f]{32}\.jpg$/, 'shape');
  });

  it('names equivalent specs alike: key order, colour case, explicit defaults', () => {
    const a = posterFileName({ title: 'T', accentColor: '#ABCDEF' });
    const b = posterFileName({ accentColor: '#abcdef', quality: 85, align: 'center', title: 'T', subtitle: '' } as never);
    assert.equal(a, b, 'same name');
    assert.notEqual(posterFileName({ title: 'T2' }), posterFileName({ title: 'T' }), 'different title, different name');
    assert.notEqual(posterFileName({ title: 'T', quality: 90 }), posterFileName({ title: 'T' }), 'quality is part of the name');
  });
});

describe('writePoster', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'poster-write-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes <publicDir>/posters/<hash>.jpg and leaves an existing file as it is', async () => {
    const path = await writePoster(SPEC, dir);
    assert.equal(path, join(dir, 'posters', posterFileName(SPEC)), 'path');
    assert.deepEqual(readdirSync(join(dir, 'posters')), [posterFileName(SPEC)], 'only the poster, no temp file');
    const written = readFileSync(path);
    assert.deepEqual([written[0], written[1]], [0xff, 0xd8], 'a JPEG');
    // Mark the file: a second write of the same spec must not replace it.
    writeFileSync(path, 'marker');
    assert.equal(await writePoster({ ...SPEC }, dir), path, 'same path again');
    assert.equal(readFileSync(path, 'utf8'), 'marker', 'existing file not rewritten');
  });

  it('survives two concurrent writers of one spec with one complete file', async () => {
    const spec = { title: 'Dos a la vez', shapes: [] };
    const [a, b] = await Promise.all([writePoster(spec, dir), writePoster(spec, dir)]);
    assert.equal(a, b, 'same path');
    assert.deepEqual(readdirSync(join(dir, 'posters')), [posterFileName(spec)], 'one file, no temp files');
    assert.deepEqual([...readFileSync(a).subarray(-2)], [0xff, 0xd9], 'complete JPEG');
  });

  it('writes nothing for an invalid spec', async () => {
    await assert.rejects(writePoster({ title: 'x'.repeat(121) }, dir), PosterSpecError, 'invalid spec rejected');
    assert.deepEqual(readdirSync(dir), [], 'no posters directory');
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { loadPosterFonts } from '../../src/poster/fonts.js';
import { backgroundPaints, planText, POSTER_HEIGHT, POSTER_WIDTH, textPaints } from '../../src/render/design.js';
import { Canvas } from '../../src/render/draw/canvas.js';
import { paintAll } from '../../src/render/draw/paint.js';
import { GlyphCache } from '../../src/render/draw/text.js';
import { drawPoster } from '../../src/render/poster.js';
import { validatePosterSpec, type PosterSpec, type PosterSpecInput } from '../../src/render/spec.js';

// Digests of drawn pixels (before the JPEG encoder), fixed on the renderer as it was before the
// drawing and text stages were made faster: speed work must leave every pixel as it was. A
// change here is a change of what posters look like, which needs a new RENDERER_VERSION.

const fonts = await loadPosterFonts();

function spec(input: PosterSpecInput): PosterSpec {
  const checked = validatePosterSpec(input);
  assert.ok(checked.ok, `test spec is valid: ${JSON.stringify(checked.ok ? [] : checked.errors)}`);
  return checked.value;
}

const pixelDigest = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The poster painted a band of `rows` rows at a time on one small canvas, as PosterRenderer
 * paints for its encoder, each band's rows copied out in turn: the whole picture's bytes.
 */
function paintedInBands(poster: PosterSpec, rows: number): Uint8Array {
  const band = new Canvas(POSTER_WIDTH, POSTER_HEIGHT, rows);
  const paints = [...backgroundPaints(poster), ...textPaints(planText(poster, fonts), new GlyphCache())];
  const whole = new Uint8Array(POSTER_WIDTH * POSTER_HEIGHT * 3);
  const rowBytes = POSTER_WIDTH * 3;
  for (let top = 0; top < POSTER_HEIGHT; top += rows) {
    band.showRows(top);
    // Left over from the band before: a paint that missed a pixel would show it.
    band.data.fill(0xa5);
    paintAll(band, paints);
    whole.set(band.data.subarray(0, (band.bottom - top) * rowBytes), top * rowBytes);
  }
  return whole;
}

/** bench/poster.mjs's typical poster: default gradient (160°) and circles, three body lines. */
const TYPICAL = spec({
  title: 'Señor Ñandú: fiesta del Año Nuevo',
  subtitle: 'Çà et là · Barcelona, 31 de diciembre — entrada 12 €',
  body:
    'Música en directo, “tapas” y cava hasta el amanecer.\n' +
    'Porta la teva família: l’entrada és gratuïta per als nens.\n' +
    '¿Quién dijo que el invierno era aburrido?',
});

/** Every kind of shape, clipped and not, fractional and tiny, over a left-aligned page. */
const SHAPES = spec({
  title: 'Taller de grabado',
  body: 'una línea\n'.repeat(99),
  align: 'left',
  background: { from: '#fafafa', to: '#101010', angle: 37 },
  textColor: '#1d4ed8',
  accentColor: '#dc2626',
  shapes: [
    { kind: 'circle', cx: -40.5, cy: 300.25, r: 260.7, color: '#22c55e', opacity: 0.6 },
    { kind: 'circle', cx: 562.5, cy: 1218, r: 0.4, color: '#000000' },
    { kind: 'circle', cx: 300.3, cy: 2000.8, r: 3.2, color: '#ffffff' },
    { kind: 'circle', cx: 700, cy: 2300, r: 90, color: '#9333ea' },
    { kind: 'circle', cx: 1200, cy: 2500, r: 40, color: '#9333ea' },
    { kind: 'rect', x: 10.5, y: 20.25, width: 300.5, height: 40.75, color: '#f59e0b', opacity: 0.5 },
    { kind: 'rect', x: 800, y: -30, width: 400, height: 200, radius: 48.5, color: '#0ea5e9' },
    { kind: 'rect', x: 100.2, y: 1500.7, width: 9.1, height: 3.3, radius: 2, color: '#000000', opacity: 0.9 },
    { kind: 'line', x1: 0, y1: 2436, x2: 1125, y2: 0, width: 3.5, color: '#ef4444', opacity: 0.7 },
    { kind: 'line', x1: 50.5, y1: 1000, x2: 1075.5, y2: 1000, width: 1, color: '#000000' },
  ],
});

describe('drawn pixels', () => {
  it('draws the typical poster as before, pixel for pixel', () => {
    assert.equal(pixelDigest(drawPoster(TYPICAL, fonts).data), '1363a62810738c34176c2291c12e0f45f87f138bf9ecc6be9de6b4b51a57f0e8');
  });

  it('draws every kind of shape, a left-aligned page and a truncated body as before', () => {
    assert.equal(pixelDigest(drawPoster(SHAPES, fonts).data), 'dda2ff2f9f48cf33373a3b0ca2af83bfcab55560d18c248750fb25858eff5d93');
  });

  it('paints the same pixels a band at a time, for bands of 1, 7, 8, 16 and 100 rows', () => {
    const digests = { typical: '1363a62810738c34176c2291c12e0f45f87f138bf9ecc6be9de6b4b51a57f0e8', shapes: 'dda2ff2f9f48cf33373a3b0ca2af83bfcab55560d18c248750fb25858eff5d93' };
    for (const rows of [1, 7, 8, 16, 100]) {
      assert.equal(pixelDigest(paintedInBands(TYPICAL, rows)), digests.typical, `typical poster, bands of ${rows}`);
      assert.equal(pixelDigest(paintedInBands(SHAPES, rows)), digests.shapes, `every shape, bands of ${rows}`);
    }
  });

  it('draws gradients at 0°, 90°, 225° and 360° as before', () => {
    const expected: ReadonlyArray<[number, string]> = [
      [0, '13102ca5b51384750e3809d1162cb74bfdf2b18dfabc99a635e8569de22ffaa1'],
      [90, '228ddbbaefda360b623ffe228009ac761798fc0295cba2862e3dfd01c9acc4e5'],
      [225, 'edb8ad603f0c0708bbf1a477d6df62cc7c948ef65469d6a52a81de220a4e997f'],
      [360, 'd0b1b7909f0b83c343c9a0902f788565942833f8373144df51eda538a10247c3'],
    ];
    const actual = expected.map(([angle]) => {
      const s = spec({ title: `Ángulo ${angle}`, background: { from: '#000814', to: '#ffd60a', angle }, shapes: [] });
      return [angle, pixelDigest(drawPoster(s, fonts).data)];
    });
    assert.deepEqual(actual, expected, 'digest per angle');
  });
});

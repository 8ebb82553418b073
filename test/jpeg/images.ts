/**
 * Deterministic test images, shared by the unit tier, the e2e tier and the
 * benchmark: no binary fixtures, the same pixels on every machine.
 *
 *   poster   - vertical gradient, flat rectangles and discs, rows of
 *              text-like strokes (what the service's posters look like)
 *   detailed - high-frequency content: zone plate, 1-pixel checkerboard,
 *              fine stripes
 *   photo    - smooth multi-scale value noise plus a little grain
 */

export type ImageKind = 'poster' | 'detailed' | 'photo';
export const IMAGE_KINDS: readonly ImageKind[] = ['poster', 'detailed', 'photo'];

export interface TestImage {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Uint8Array;
}

/** Small, fast, seedable PRNG (mulberry32) returning floats in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const clamp = (v: number): number => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** Makes a `kind` image with 1, 3 or 4 channels (grey is a luma mix, alpha varies and must not matter). */
export function makeImage(kind: ImageKind, width: number, height: number, channels: 1 | 3 | 4, seed = 1): TestImage {
  const rgb = kind === 'poster' ? poster(width, height, seed)
    : kind === 'detailed' ? detailed(width, height)
      : photo(width, height, seed);
  return { width, height, channels, data: withChannels(rgb, channels) };
}

function withChannels(rgb: Uint8Array, channels: 1 | 3 | 4): Uint8Array {
  if (channels === 3) return rgb;
  const pixels = rgb.length / 3;
  const out = new Uint8Array(pixels * channels);
  for (let i = 0; i < pixels; i++) {
    const [r, g, b] = [rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]];
    if (channels === 1) {
      out[i] = clamp(0.3 * r + 0.59 * g + 0.11 * b);
    } else {
      out.set([r, g, b, (i * 37) & 255], 4 * i);
    }
  }
  return out;
}

function poster(width: number, height: number, seed: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const t = height > 1 ? y / (height - 1) : 0;
    for (let x = 0; x < width; x++) {
      data.set([clamp(30 + 190 * t), clamp(60 + 120 * (x / width)), clamp(210 - 120 * t)], 3 * (y * width + x));
    }
  }
  const rnd = random(seed);
  const colour = (): [number, number, number] => [clamp(rnd() * 255), clamp(rnd() * 255), clamp(rnd() * 255)];
  for (let i = 0; i < 8; i++) {
    const [x0, y0] = [Math.floor(rnd() * width), Math.floor(rnd() * height)];
    const [w, h] = [Math.ceil(rnd() * width * 0.4), Math.ceil(rnd() * height * 0.2)];
    fillRect(data, width, height, x0, y0, w, h, colour());
    disc(data, width, height, rnd() * width, rnd() * height, (rnd() * Math.min(width, height)) / 5, colour());
  }
  textLines(data, width, height, rnd);
  return data;
}

function fillRect(
  data: Uint8Array, width: number, height: number, x0: number, y0: number, w: number, h: number,
  rgb: [number, number, number],
): void {
  for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) {
    for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) data.set(rgb, 3 * (y * width + x));
  }
}

function disc(
  data: Uint8Array, width: number, height: number, cx: number, cy: number, r: number,
  rgb: [number, number, number],
): void {
  for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(height, Math.ceil(cy + r)); y++) {
    for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(width, Math.ceil(cx + r)); x++) {
      if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) data.set(rgb, 3 * (y * width + x));
    }
  }
}

/** Rows of glyph-sized cells, each with a few dark horizontal, vertical and diagonal strokes. */
function textLines(data: Uint8Array, width: number, height: number, rnd: () => number): void {
  const glyph = Math.max(4, Math.round(width / 40));
  const pen = Math.max(1, Math.round(glyph / 8));
  const ink: [number, number, number] = [20, 20, 30];
  for (let line = Math.round(height * 0.55); line + glyph < height; line += glyph * 2) {
    for (let x0 = glyph; x0 + glyph < width - glyph; x0 += Math.round(glyph * 0.8)) {
      if (rnd() < 0.15) continue; // word gap
      for (let s = 0; s < 3; s++) {
        const kind = Math.floor(rnd() * 3);
        const offset = Math.floor(rnd() * (glyph - pen));
        for (let i = 0; i < glyph; i++) {
          const [x, y] = kind === 0 ? [x0 + i, line + offset] : kind === 1 ? [x0 + offset, line + i] : [x0 + i, line + i];
          fillRect(data, width, height, Math.round(x * 0.7 + x0 * 0.3), y, pen, pen, ink);
        }
      }
    }
    if (line > height * 0.9) break;
  }
}

/** Mostly luminance detail (as in real fine texture and small text), with slowly varying colour. */
function detailed(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  const k = (4 * Math.PI) / Math.max(width, height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const region = ((x >> 5) + (y >> 5)) % 3;
      const detail = region === 0 ? 128 + 120 * Math.cos(k * (x * x + y * y) * 0.25)
        : region === 1 ? ((x ^ y) & 1) * 200 + 28
          : ((x >> 1) & 1) * 180 + ((y >> 2) & 1) * 40 + 18;
      const tint = [60 * Math.sin(y / 97), 60 * Math.cos(x / 83), 60 * Math.sin((x + y) / 131)];
      data.set([clamp(detail + tint[0]), clamp(detail + tint[1]), clamp(detail + tint[2])], 3 * (y * width + x));
    }
  }
  return data;
}

function photo(width: number, height: number, seed: number): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  const rnd = random(seed);
  const octaves = [
    { cell: 96, weight: 150 },
    { cell: 24, weight: 60 },
    { cell: 6, weight: 25 },
  ];
  const value = new Float64Array(width);
  for (let c = 0; c < 3; c++) {
    // Each channel has its own noise, so colours vary as well as brightness.
    const grids = octaves.map(({ cell }) => noiseGrid(width, height, cell, rnd));
    for (let y = 0; y < height; y++) {
      value.fill(20 + 20 * c);
      octaves.forEach(({ cell, weight }, i) => addNoiseRow(value, grids[i], cell, y, weight));
      for (let x = 0; x < width; x++) data[3 * (y * width + x) + c] = clamp(value[x] + (rnd() - 0.5) * 8);
    }
  }
  return data;
}

interface Grid {
  columns: number;
  values: Float64Array;
}

function noiseGrid(width: number, height: number, cell: number, rnd: () => number): Grid {
  const columns = Math.ceil(width / cell) + 2;
  const rows = Math.ceil(height / cell) + 2;
  return { columns, values: Float64Array.from({ length: columns * rows }, rnd) };
}

const smooth = (t: number): number => t * t * (3 - 2 * t);

/** Adds `weight` times one row of bilinearly interpolated (smoothstep-weighted) grid noise. */
function addNoiseRow(out: Float64Array, grid: Grid, cell: number, y: number, weight: number): void {
  const gy = Math.floor(y / cell);
  const fy = smooth(y / cell - gy);
  const top = gy * grid.columns;
  const bottom = top + grid.columns;
  const v = grid.values;
  for (let x = 0; x < out.length; x++) {
    const gx = Math.floor(x / cell);
    const fx = smooth(x / cell - gx);
    const upper = v[top + gx] + (v[top + gx + 1] - v[top + gx]) * fx;
    const lower = v[bottom + gx] + (v[bottom + gx + 1] - v[bottom + gx]) * fx;
    out[x] += weight * (upper + (lower - upper) * fy);
  }
}

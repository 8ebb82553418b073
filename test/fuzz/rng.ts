/**
 * A small seeded random source (sfc32) for the fuzz tier. Every case draws from its own
 * generator, derived from the run's seed and the case index, so one case can be replayed on
 * its own whatever ran before it.
 */

/** Mixes a seed and an index into four 32-bit words (splitmix32 steps). */
function seedWords(seed: number, index: number): [number, number, number, number] {
  let state = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  return [next(), next(), next(), next()];
}

export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number, index = 0) {
    [this.#a, this.#b, this.#c, this.#d] = seedWords(seed, index);
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** The next 32-bit unsigned value. */
  uint32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor((this.uint32() / 2 ** 32) * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.uint32() / 2 ** 32 < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new TypeError('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Picks by weight: `[[3, 'a'], [1, 'b']]` gives `a` three times as often. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let at = this.uint32() / 2 ** 32 * total;
    for (const [w, value] of choices) {
      if (at < w) return value;
      at -= w;
    }
    return choices[choices.length - 1]![1];
  }

  /** `length` characters drawn from `alphabet`. */
  text(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(0, alphabet.length - 1)];
    return out;
  }

  /** A length biased to small values but reaching `max` now and then. */
  length(max: number): number {
    return this.weighted([[6, this.int(0, 16)], [3, this.int(0, 512)], [1, this.int(0, max)]]);
  }
}

/** A seed from text (`FUZZ_SEED=abc` and `FUZZ_SEED=42` both work). */
export function parseSeed(text: string | undefined): number {
  if (text === undefined || text === '') return 20250601;
  if (/^\d+$/.test(text)) return Number(text) >>> 0;
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return hash;
}

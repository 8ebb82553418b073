/**
 * Keeping configured secret values out of what operators read: log files, stderr and the dev
 * profiler's pages (README, "Settings"). Answers echo what the client sent as it sent it, so no answer tells
 * a client whether its text held a secret.
 *
 * A client may send a secret raw, percent-encoded (RFC 3986 2.1, either case of hex digit, any
 * mix of raw and `%XX` bytes) or form-encoded (`+` for a space, WHATWG URL 5.1). Each reading of
 * a text is decoded as a stream of UTF-8 bytes that remembers which span of the text each byte
 * came from; the secrets are searched in that stream (Knuth-Morris-Pratt, linear) and the spans
 * they cover are masked in the text.
 */
import { MIN_SECRET_LENGTH, SECRET_SETTINGS, type Config } from './config.js';
import { literalPattern } from '../util/literal-pattern.js';

/** What a secret value is replaced with. */
export const MASK = '******';

/** Shorter values would mask ordinary words; the settings refuse a shorter credential. */
const MIN_MASKED_LENGTH = MIN_SECRET_LENGTH;

/** The non-empty secret values of a config, longest first. */
export function secretValuesOf(config: Config): string[] {
  // REDIS_URL's password is a credential too, though it arrives inside a URL.
  return [...SECRET_SETTINGS.map((name) => config.secrets[name]), config.redis?.password ?? '']
    .filter((value) => value.length >= MIN_MASKED_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** One secret as the scan looks for it: its UTF-8 bytes and their KMP failure table. */
interface SecretPattern {
  readonly bytes: Uint8Array;
  /** `fallback[q]`: the longest proper border of the first q + 1 bytes. */
  readonly fallback: Int32Array;
}

/** The secrets of a masker, compiled once, with the scan's scratch space (used synchronously). */
interface CompiledSecrets {
  /** The values as strings, for a first look at the raw text (the engine's substring search). */
  readonly values: readonly string[];
  /** Each value's UTF-8 bytes as a Latin-1 string: a first look at a decoded reading. */
  readonly byteTexts: readonly string[];
  readonly patterns: readonly SecretPattern[];
  /** No text shorter than this can hold a secret in any form (encoding only lengthens). */
  readonly shortest: number;
  /** Only a secret with a space can be hidden by `+` (the form reading). */
  readonly anySpace: boolean;
  /** The text offsets of the last bytes read, as many as the longest pattern has. */
  readonly starts: Int32Array;
  /** Each pattern's automaton state. */
  readonly states: Int32Array;
}

function compileSecrets(secretValues: readonly string[]): CompiledSecrets {
  const values = secretValues.filter((value) => value.length >= MIN_MASKED_LENGTH);
  const patterns = values.map((value) => {
    const bytes = new Uint8Array(Buffer.from(value, 'utf8'));
    return { bytes, fallback: failureTable(bytes) };
  });
  return {
    values,
    byteTexts: patterns.map((pattern) => Buffer.from(pattern.bytes).toString('latin1')),
    patterns,
    shortest: values.reduce((min, value) => Math.min(min, value.length), Infinity),
    anySpace: values.some((value) => value.includes(' ')),
    starts: new Int32Array(patterns.reduce((max, p) => Math.max(max, p.bytes.length), 0)),
    states: new Int32Array(patterns.length),
  };
}

/** The KMP failure function of a pattern. */
function failureTable(bytes: Uint8Array): Int32Array {
  const fallback = new Int32Array(bytes.length);
  for (let i = 1, k = 0; i < bytes.length; i++) {
    while (k > 0 && bytes[i] !== bytes[k]) k = fallback[k - 1]!;
    if (bytes[i] === bytes[k]) k++;
    fallback[i] = k;
  }
  return fallback;
}

/** How a text is read into bytes: as it is, `%XX` decoded, or `%XX` decoded and `+` a space. */
type Reading = 'raw' | 'percent' | 'form';

/** The value of a hex digit, -1 for any other code unit. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/**
 * The bytes markReading steps through for a decoding reading (`percent` or `form`), as a Latin-1
 * string: the text's UTF-8 bytes (a lone surrogate as U+FFFD's, as Buffer encodes it), then each
 * `%XX` as its byte and, reading a form, `+` as a space. Escapes are ASCII, so decoding them in
 * the UTF-8 bytes reads what markReading reads; one native encoding serves any mix of scripts.
 */
function readingBytes(text: string, reading: Exclude<Reading, 'raw'>): string {
  const bytes = Buffer.from(text, 'utf8').toString('latin1');
  let out = '';
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    const code = bytes.charCodeAt(i);
    if (code === 0x25 /* % */) {
      const high = hexValue(bytes.charCodeAt(i + 1));
      const low = high < 0 ? -1 : hexValue(bytes.charCodeAt(i + 2));
      if (low < 0) continue;
      out += bytes.slice(from, i) + String.fromCharCode(high * 16 + low);
      i += 2;
      from = i + 1;
    } else if (code === 0x2b /* + */ && reading === 'form') {
      out += `${bytes.slice(from, i)} `;
      from = i + 1;
    }
  }
  return out + bytes.slice(from);
}

/**
 * Whether a decoding reading of `text` holds a secret anywhere: exactly when markReading would
 * find one, since both look for the secrets' bytes in the same byte sequence. Decoding once and
 * searching with the engine's substring search costs a fraction of stepping every automaton over
 * every byte (a 220-character access line with one `%`: about a tenth), so the automata run only
 * where a secret is there, to mark its spans.
 */
function readingHoldsSecret(text: string, secrets: CompiledSecrets, reading: Exclude<Reading, 'raw'>): boolean {
  const bytes = readingBytes(text, reading);
  return secrets.byteTexts.some((secret) => bytes.includes(secret));
}

/**
 * Marks in `cover` (cover[start] = the furthest end of a span starting there; made at the first
 * match) every span of `text` that holds a secret in the given reading. One pass over the text,
 * each byte stepping every pattern's automaton: O(text × secrets).
 */
function markReading(text: string, secrets: CompiledSecrets, reading: Reading, cover: Int32Array | undefined): Int32Array | undefined {
  const { patterns, starts, states } = secrets;
  states.fill(0);
  const ring = starts.length;
  let pos = 0;
  let spanStart = 0;
  let spanEnd = 0;
  const step = (byte: number) => {
    starts[pos % ring] = spanStart;
    for (let p = 0; p < patterns.length; p++) {
      const { bytes, fallback } = patterns[p]!;
      let q = states[p]!;
      while (q > 0 && bytes[q] !== byte) q = fallback[q - 1]!;
      if (bytes[q] === byte) q++;
      if (q === bytes.length) {
        const start = starts[(pos - q + 1) % ring]!;
        cover ??= new Int32Array(text.length + 1);
        if (cover[start]! < spanEnd) cover[start] = spanEnd;
        q = fallback[q - 1]!;
      }
      states[p] = q;
    }
    pos++;
  };
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    spanStart = i;
    if (reading !== 'raw' && code === 0x25 /* % */) {
      const high = hexValue(text.charCodeAt(i + 1));
      const low = high < 0 ? -1 : hexValue(text.charCodeAt(i + 2));
      if (low >= 0) {
        spanEnd = i + 3;
        step(high * 16 + low);
        i = spanEnd;
        continue;
      }
    }
    spanEnd = i + 1;
    if (code < 0x80) {
      step(reading === 'form' && code === 0x2b /* + */ ? 0x20 : code);
    } else if (code < 0x800) {
      step(0xc0 | (code >> 6));
      step(0x80 | (code & 0x3f));
    } else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      const point = 0x10000 + ((code - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00);
      spanEnd = i + 2;
      step(0xf0 | (point >> 18));
      step(0x80 | ((point >> 12) & 0x3f));
      step(0x80 | ((point >> 6) & 0x3f));
      step(0x80 | (point & 0x3f));
    } else {
      // A lone surrogate is U+FFFD in UTF-8, as Buffer encodes it in a secret.
      const unit = code >= 0xd800 && code <= 0xdfff ? 0xfffd : code;
      step(0xe0 | (unit >> 12));
      step(0x80 | ((unit >> 6) & 0x3f));
      step(0x80 | (unit & 0x3f));
    }
    i = spanEnd;
  }
  return cover;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;


/** `text` with every marked span replaced by the mask; overlapping spans become one mask. */
function replaceCovered(text: string, cover: Int32Array): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    let end = cover[i]!;
    if (end <= i) {
      i++;
      continue;
    }
    for (let j = i + 1; j < end; j++) if (cover[j]! > end) end = cover[j]!;
    out += text.slice(from, i) + MASK;
    from = i = end;
  }
  return out + text.slice(from);
}

/** Masks every secret of `secrets` in `text`, in every form; the same string when none is there. */
function maskCompiled(text: string, secrets: CompiledSecrets): string {
  if (text.length < secrets.shortest) return text;
  // Most texts hold no secret raw: the engine's own substring search tells so at a fraction of
  // the automata's cost (stepping them byte by byte was 5 % of a 404's CPU on the realistic mix);
  // they run, linear and exact about overlaps, only where a secret is there.
  let cover = secrets.values.some((value) => text.includes(value)) ? markReading(text, secrets, 'raw', undefined) : undefined;
  // A reading that decodes nothing finds only what the raw one found.
  if (text.includes('%') && readingHoldsSecret(text, secrets, 'percent')) cover = markReading(text, secrets, 'percent', cover);
  if (secrets.anySpace && text.includes('+') && readingHoldsSecret(text, secrets, 'form')) cover = markReading(text, secrets, 'form', cover);
  return cover === undefined ? text : replaceCovered(text, cover);
}

/**
 * Replaces every occurrence of a secret value (4 characters or more) with the mask, whether it
 * is raw, percent-encoded (any bytes, either case) or form-encoded. Linear in the text.
 */
export function maskText(text: string, secretValues: readonly string[]): string {
  const secrets = compileSecrets(secretValues);
  return secrets.patterns.length === 0 ? text : maskCompiled(text, secrets);
}

/**
 * A copy of a JSON-like value with secrets masked (as maskText does) in every string, member
 * names and nested members included.
 */
export function maskJsonValue(value: unknown, secretValues: readonly string[]): unknown {
  const secrets = compileSecrets(secretValues);
  if (secrets.patterns.length === 0) return value;
  return mapEveryString(value, (text) => maskCompiled(text, secrets));
}

/**
 * A copy of a JSON-like value with `map` applied to every string, member names and nested
 * members included. Walked without recursion, so no depth overflows the stack; a container met
 * twice (shared, or a cycle) is copied once. Other objects are kept as they are.
 */
export function mapEveryString(value: unknown, map: (text: string) => string): unknown {
  const copies = new Map<object, unknown[] | Record<string, unknown>>();
  const pending: [source: object, copy: unknown[] | Record<string, unknown>][] = [];
  const copyOf = (item: unknown): unknown => {
    if (typeof item === 'string') return map(item);
    if (!isContainer(item)) return item;
    let copy = copies.get(item);
    if (copy === undefined) {
      copy = Array.isArray(item) ? [] : {};
      copies.set(item, copy);
      pending.push([item, copy]);
    }
    return copy;
  };
  const root = copyOf(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, copy] = next;
    if (Array.isArray(source)) {
      for (const item of source) (copy as unknown[]).push(copyOf(item));
    } else {
      // Defined, not assigned: a member named `__proto__` stays a member.
      for (const [key, item] of Object.entries(source)) {
        Object.defineProperty(copy, map(key), { value: copyOf(item), enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;
}

/** An array or a plain object: what JSON.parse makes. */
function isContainer(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Masks secrets in a text, and says what in a text may be one. */
export interface SecretMasker {
  (text: string): string;
  /**
   * Finds what in a text may start a secret in a form the masker masks: the first characters of a
   * raw value, a `%` (a percent-encoded one), a `+` when a secret holds a space (a form-encoded
   * one). A text it finds nothing in, the masker returns unchanged. Each alternative is a few
   * characters long, so a search costs a few steps a character whatever the text. Undefined when
   * no secret is set.
   */
  readonly trigger: RegExp | undefined;
}

/**
 * A function that masks the config's secrets in a text (as maskText does), compiled once; the
 * identity when none is set.
 */
export function createSecretMasker(config: Config): SecretMasker {
  const secrets = compileSecrets(secretValuesOf(config));
  if (secrets.patterns.length === 0) return Object.assign((text: string) => text, { trigger: undefined });
  // A text holding a value holds its start: searching for starts alone never misses one, and a
  // start found where no value follows only costs the masker's full search.
  const starts = new Set(secrets.values.map((value) => literalPattern(value.slice(0, MIN_MASKED_LENGTH))));
  const forms = [...starts, '%', ...(secrets.anySpace ? ['\\+'] : [])];
  return Object.assign((text: string) => maskCompiled(text, secrets), { trigger: new RegExp(forms.join('|')) });
}

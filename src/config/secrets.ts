/**
 * Keeping configured secret values out of what operators read: log files, stderr and the dev
 * profiler's pages (docs/http.md, "Routing and errors"). Answers echo what the client sent as it sent it, so no answer tells
 * a client whether its text held a secret.
 *
 * A client may send a secret raw, percent-encoded (RFC 3986 2.1, either case of hex digit, any
 * mix of raw and `%XX` bytes) or form-encoded (`+` for a space, WHATWG URL 5.1). Each reading of
 * a text goes through one decoder into UTF-8 bytes, each byte remembering the span of the text it
 * came from; one matcher finds the secrets' bytes there (the engine's own search) and the spans
 * they cover are masked in the text. Cheap pre-checks (a raw value found, a `%`, a `+`) leave
 * most texts undecoded.
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

/** One secret as a reading is searched for it: its UTF-8 bytes and their KMP failure table. */
interface SecretPattern {
  /** The bytes as a Latin-1 string, as a reading is decoded. */
  readonly bytes: string;
  /** `fallback[q]`: the longest proper border of the first q + 1 bytes. */
  readonly fallback: Int32Array;
}

/** The secrets of a masker, compiled once. */
interface CompiledSecrets {
  /** The values as strings, for the raw pre-check. */
  readonly values: readonly string[];
  readonly patterns: readonly SecretPattern[];
  /** No text shorter than this can hold a secret in any form (encoding only lengthens). */
  readonly shortest: number;
  /** Only a secret with a space can be hidden by `+` (the form reading). */
  readonly anySpace: boolean;
}

function compileSecrets(secretValues: readonly string[]): CompiledSecrets {
  const values = secretValues.filter((value) => value.length >= MIN_MASKED_LENGTH);
  return {
    values,
    patterns: values.map((value) => {
      const bytes = Buffer.from(value, 'utf8').toString('latin1');
      return { bytes, fallback: failureTable(bytes) };
    }),
    shortest: values.reduce((min, value) => Math.min(min, value.length), Infinity),
    anySpace: values.some((value) => value.includes(' ')),
  };
}

/** The KMP failure function of a pattern. */
function failureTable(bytes: string): Int32Array {
  const fallback = new Int32Array(bytes.length);
  for (let i = 1, k = 0; i < bytes.length; i++) {
    while (k > 0 && bytes.charCodeAt(i) !== bytes.charCodeAt(k)) k = fallback[k - 1]!;
    if (bytes.charCodeAt(i) === bytes.charCodeAt(k)) k++;
    fallback[i] = k;
  }
  return fallback;
}

/** How a text is read into bytes: as it is, `%XX` decoded, or `%XX` decoded and `+` a space. */
type Reading = 'raw' | 'percent' | 'form';

/** Where each byte of a reading came from: the text span `[starts[k], ends[k])` of byte k. */
interface Spans {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

/** The value of a hex digit, -1 for any other code unit. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/**
 * The decoder: one reading of `text`, as a Latin-1 string of bytes. The text's UTF-8 bytes (a
 * lone surrogate as U+FFFD's, as Buffer encodes a secret too); unless the reading is raw, each
 * `%XX` as its byte; reading a form, `+` as a space. Escapes are ASCII, so decoding them in the
 * UTF-8 bytes (natively encoded) reads what the text says. With `spans` (room for every byte of
 * the reading), records the text span each byte came from.
 */
function decodeReading(text: string, reading: Reading, spans?: Spans): string {
  const bytes = Buffer.from(text, 'utf8');
  const escapes = reading !== 'raw';
  const plusIsSpace = reading === 'form';
  let n = 0;
  // Bytes are decoded in place: `n` never passes `i`. `unit` is the text offset of byte `i`.
  for (let i = 0, unit = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    const first = n;
    // What bytes i.. stand for: `length` bytes here, `units` code units of the text.
    let length = 1;
    let units = 1;
    const high = escapes && lead === 0x25 /* % */ ? hexValue(bytes[i + 1]!) : -1;
    const low = high < 0 ? -1 : hexValue(bytes[i + 2]!);
    if (low >= 0) {
      bytes[n++] = high * 16 + low;
      length = units = 3;
    } else if (lead < 0x80) {
      bytes[n++] = plusIsSpace && lead === 0x2b /* + */ ? 0x20 : lead;
    } else {
      // A character's UTF-8 bytes, kept: four of them are a surrogate pair, two code units.
      length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
      units = length === 4 ? 2 : 1;
      if (n === i) n += length; // nothing decoded yet: the bytes are in place
      else for (let k = i; k < i + length; k++) bytes[n++] = bytes[k]!;
    }
    if (spans !== undefined) {
      for (let k = first; k < n; k++) {
        spans.starts[k] = unit;
        spans.ends[k] = unit + units;
      }
    }
    i += length;
    unit += units;
  }
  return bytes.toString('latin1', 0, n);
}

/**
 * The matcher: marks in `cover` (cover[start] = the furthest end of a span starting there) every
 * span of the text that a secret's bytes cover in a decoded reading, overlapping ones included.
 * Knuth-Morris-Pratt, one pass a secret: O(bytes × secrets) whatever the secrets repeat.
 */
function markSecrets(stream: string, spans: Spans, secrets: CompiledSecrets, cover: Int32Array): void {
  for (const { bytes, fallback } of secrets.patterns) {
    for (let i = 0, q = 0; i < stream.length; i++) {
      const byte = stream.charCodeAt(i);
      while (q > 0 && bytes.charCodeAt(q) !== byte) q = fallback[q - 1]!;
      if (bytes.charCodeAt(q) === byte) q++;
      if (q === bytes.length) {
        const start = spans.starts[i - q + 1]!;
        if (cover[start]! < spans.ends[i]!) cover[start] = spans.ends[i]!;
        q = fallback[q - 1]!;
      }
    }
  }
}

/**
 * Marks, in `cover` (made at the first secret), the spans of `text` holding a secret in one
 * reading. The reading is decoded and searched once, as a Latin-1 string: the engine's substring
 * search costs less than a native call per secret would. Only a text that holds a secret (rare)
 * is decoded again with each byte's span, for the matcher to mark.
 */
function markReading(text: string, secrets: CompiledSecrets, reading: Reading, cover: Int32Array | undefined): Int32Array | undefined {
  const stream = decodeReading(text, reading);
  if (!secrets.patterns.some((pattern) => stream.includes(pattern.bytes))) return cover;
  const spans = { starts: new Int32Array(stream.length), ends: new Int32Array(stream.length) };
  decodeReading(text, reading, spans);
  cover ??= new Int32Array(text.length + 1);
  markSecrets(stream, spans, secrets, cover);
  return cover;
}

/** Pre-check: a text can hold a raw secret only where the engine's substring search finds one. */
function mayHoldRaw(text: string, secrets: CompiledSecrets): boolean {
  return secrets.values.some((value) => text.includes(value));
}

/** Pre-check: a percent reading differs from the raw one only where the text has a `%`. */
function mayHoldPercentEncoded(text: string): boolean {
  return text.includes('%');
}

/** Pre-check: a form reading finds more only where a `+` may stand for a secret's space. */
function mayHoldFormEncoded(text: string, secrets: CompiledSecrets): boolean {
  return secrets.anySpace && text.includes('+');
}

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
  let cover = mayHoldRaw(text, secrets) ? markReading(text, secrets, 'raw', undefined) : undefined;
  if (mayHoldPercentEncoded(text)) cover = markReading(text, secrets, 'percent', cover);
  if (mayHoldFormEncoded(text, secrets)) cover = markReading(text, secrets, 'form', cover);
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

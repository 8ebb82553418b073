/**
 * Byte ranges (RFC 9110 14): parsing one `Range` header against a representation's size.
 * Only a single range is served; several ranges, other units and anything malformed are
 * answered with the whole representation, which RFC 9110 14.2 allows ("a server MAY ignore
 * the Range header field").
 */
import { isOws, skipDigits, skipOws } from '../http/index.js';

/** What to send for a Range header. `end` is inclusive, as in Content-Range. */
export type RangeDecision =
  | { readonly kind: 'whole' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const WHOLE: Readonly<RangeDecision> = { kind: 'whole' };
const UNSATISFIABLE: Readonly<RangeDecision> = { kind: 'unsatisfiable' };

/**
 * Decides a `Range` header value for a representation of `size` bytes:
 * `bytes=0-499`, `bytes=500-` and `bytes=-500` (the last 500) give `partial`, clamped to the
 * size; a first byte at or past the end, or `bytes=-0`, gives `unsatisfiable`. Scanned by hand
 * in one forward pass.
 */
export function decideRange(value: string | undefined, size: number): RangeDecision {
  if (value === undefined) return WHOLE;
  // RFC 9110 14.1.1: ranges-specifier = range-unit "=" range-set; the unit is case-insensitive.
  const equals = value.indexOf('=');
  if (equals < 0 || !isBytesUnit(value, equals)) return WHOLE;
  let spec: RangeSpec | undefined;
  let at = skipOws(value, equals + 1);
  while (at < value.length) {
    // 1#range-spec: recipients ignore empty list elements (RFC 9110 5.6.1.2).
    if (value.charCodeAt(at) === COMMA) {
      at = skipOws(value, at + 1);
      continue;
    }
    if (spec !== undefined) return WHOLE; // a second range
    const firstEnd = skipDigits(value, at);
    if (value.charCodeAt(firstEnd) !== HYPHEN) return WHOLE;
    const lastEnd = skipDigits(value, firstEnd + 1);
    spec = { first: value.slice(at, firstEnd), last: value.slice(firstEnd + 1, lastEnd) };
    at = skipOws(value, lastEnd);
    if (at < value.length && value.charCodeAt(at) !== COMMA) return WHOLE;
  }
  return spec === undefined ? WHOLE : decideSpec(spec, size);
}

const COMMA = 0x2c;
const HYPHEN = 0x2d;

/** The digits either side of the hyphen of one range-spec, as sent (either may be empty). */
interface RangeSpec {
  readonly first: string;
  readonly last: string;
}

/** Whether the text before the `=` at `equals` is `bytes`, in any case, with optional whitespace. */
function isBytesUnit(value: string, equals: number): boolean {
  const start = skipOws(value, 0);
  let end = equals;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return end - start === BYTES.length && value.slice(start, end).toLowerCase() === BYTES;
}

const BYTES = 'bytes';

function decideSpec({ first, last }: RangeSpec, size: number): RangeDecision {
  if (first === '') {
    if (last === '') return WHOLE; // `bytes=-` is no range-spec
    return suffixRange(Number(last), size);
  }
  const start = Number(first);
  const end = last === '' ? Infinity : Number(last);
  if (end < start) return WHOLE; // an invalid range-spec: ignore the header (RFC 9110 14.1.1)
  if (start >= size) return UNSATISFIABLE;
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

/** `bytes=-n`: the last n bytes, or all of them when n is larger than the size. */
function suffixRange(length: number, size: number): RangeDecision {
  if (length === 0) return UNSATISFIABLE;
  // RFC 9110 14.1.1: on an empty representation only a non-zero suffix is satisfiable, and
  // there is nothing to cut from it: send the (empty) whole.
  if (size === 0) return WHOLE;
  return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
}

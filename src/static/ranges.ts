/**
 * Byte ranges (RFC 9110 14): parsing one `Range` header against a representation's size.
 * Only a single range is served; several ranges, other units and anything malformed are
 * answered with the whole representation, which RFC 9110 14.2 allows ("a server MAY ignore
 * the Range header field").
 */

/** What to send for a Range header. `end` is inclusive, as in Content-Range. */
export type RangeDecision =
  | { readonly kind: 'whole' }
  | { readonly kind: 'partial'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const WHOLE: RangeDecision = { kind: 'whole' };
const UNSATISFIABLE: RangeDecision = { kind: 'unsatisfiable' };

/**
 * Decides a `Range` header value for a representation of `size` bytes:
 * `bytes=0-499`, `bytes=500-` and `bytes=-500` (the last 500) give `partial`, clamped to the
 * size; a first byte at or past the end, or `bytes=-0`, gives `unsatisfiable`.
 */
export function decideRange(value: string | undefined, size: number): RangeDecision {
  if (value === undefined) return WHOLE;
  // RFC 9110 14.1.1: ranges-specifier = range-unit "=" range-set; the unit is case-insensitive.
  const equals = value.indexOf('=');
  if (equals < 0 || value.slice(0, equals).trim().toLowerCase() !== 'bytes') return WHOLE;
  // 1#range-spec: recipients ignore empty list elements (RFC 9110 5.6.1.2).
  const specs = value
    .slice(equals + 1)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (specs.length !== 1) return WHOLE;
  const spec = /^(\d*)-(\d*)$/.exec(specs[0]!);
  if (!spec) return WHOLE;
  const first = spec[1]!;
  const last = spec[2]!;
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

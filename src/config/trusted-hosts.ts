/**
 * `TRUSTED_HOSTS`: the host names a request may name, as exact names, `*.example.org` or a
 * regular expression checked for catastrophic backtracking before it is compiled.
 */

export type HostMatcher = (hostname: string) => boolean;

/** `[a-z0-9.-]` names or a bracketed IPv6 address, then an optional port (docs/http.md, "Routing and errors"). */
const VALID_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** Whether a Host header value (already lower-cased) is syntactically a host. */
export function isValidHost(host: string): boolean {
  return VALID_HOST.test(host);
}

/**
 * Parses `TRUSTED_HOSTS`: comma-separated entries, each an exact host name, `*.example.org`
 * (any subdomain) or a regular expression written between `^` and `$`. Empty: no restriction.
 */
export function parseTrustedHosts(list: string): HostMatcher | undefined {
  const entries = list.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (entries.length === 0) return undefined;
  const matchers = entries.map(compileHostPattern);
  return (hostname) => matchers.some((match) => match(hostname));
}

function compileHostPattern(entry: string): HostMatcher {
  if (entry.startsWith('^')) {
    const risk = backtrackingRisk(entry);
    if (risk !== undefined) throw new Error(`${JSON.stringify(entry)} could take exponential time to match: ${risk}; use *.example.org or a simpler pattern`);
    let pattern: RegExp;
    try {
      pattern = new RegExp(entry.endsWith('$') ? entry : `${entry}$`, 'i');
    } catch {
      throw new Error(`${JSON.stringify(entry)} is not a valid pattern`);
    }
    return (hostname) => pattern.test(hostname);
  }
  const name = entry.toLowerCase();
  if (name.startsWith('*.')) {
    const suffix = name.slice(1);
    return (hostname) => hostname.endsWith(suffix) && hostname.length > suffix.length;
  }
  if (!isValidHost(name)) throw new Error(`${JSON.stringify(entry)} is not a host name or pattern`);
  return (hostname) => hostname === name;
}

/** More unbounded repetitions than this in one pattern could cost n^4 steps on a 255-byte host. */
const MAX_UNBOUNDED_REPETITIONS = 3;

/**
 * Why a `TRUSTED_HOSTS` pattern could backtrack catastrophically, or undefined when it cannot:
 * a repeated group that itself holds a repetition or an alternation (`(a+)+`, `(a|aa)*`),
 * back-references and lookarounds are refused, and so are more than three unbounded
 * repetitions. JavaScript's engine backtracks, so the pattern is judged before it ever runs.
 */
export function backtrackingRisk(source: string): string | undefined {
  /** Per open group: whether it holds a repetition or an alternation so far. */
  const groups: boolean[] = [];
  let unbounded = 0;
  let lastAtomWasGroup = false;
  let lastGroupIsRisky = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    let atomIsGroup = false;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9k]/.test(next)) return 'it uses a back-reference';
      i++;
    } else if (c === '[') {
      i = classEnd(source, i);
    } else if (c === '(') {
      if (source[i + 1] === '?' && (source[i + 2] === '=' || source[i + 2] === '!' || (source[i + 2] === '<' && /[=!]/.test(source[i + 3] ?? '')))) {
        return 'it uses a lookaround';
      }
      groups.push(false);
      continue;
    } else if (c === ')') {
      lastGroupIsRisky = groups.pop() ?? false;
      atomIsGroup = true;
    } else if (c === '|') {
      if (groups.length > 0) groups[groups.length - 1] = true;
      continue;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const quantifier = readQuantifier(source, i);
      i = quantifier.end;
      if (quantifier.unbounded && ++unbounded > MAX_UNBOUNDED_REPETITIONS) return `it has more than ${MAX_UNBOUNDED_REPETITIONS} unbounded repetitions`;
      if (quantifier.repeats && lastAtomWasGroup && lastGroupIsRisky) return 'a repeated group holds a repetition or an alternation';
      if (quantifier.varies && groups.length > 0) groups[groups.length - 1] = true;
      lastAtomWasGroup = false;
      continue;
    }
    // A risky inner group makes its enclosing group risky too.
    if (atomIsGroup && lastGroupIsRisky && groups.length > 0) groups[groups.length - 1] = true;
    lastAtomWasGroup = atomIsGroup;
  }
  return undefined;
}

/** Where the character class that opens at `open` ends: its `]` (a `]` first in the class is literal). */
function classEnd(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === '^') i++;
  if (source[i] === ']') i++;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i;
}

/** What the quantifier at `at` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, lazy or not) does to its atom. */
interface Quantifier {
  /** The atom may match more than once. */
  readonly repeats: boolean;
  /** Without an upper bound (`*`, `+`, `{n,}`). */
  readonly unbounded: boolean;
  /** How often the atom repeats is not fixed (`a{2}` is fixed, `a{2,3}` is not). */
  readonly varies: boolean;
  /** The index of its last character. */
  readonly end: number;
}

function readQuantifier(source: string, at: number): Quantifier {
  const c = source[at];
  let quantifier: Quantifier = { repeats: c !== '?', unbounded: c === '*' || c === '+', varies: true, end: at };
  if (c === '{') {
    const close = source.indexOf('}', at);
    const m = /^(\d+)(,(\d*))?$/.exec(close < 0 ? '' : source.slice(at + 1, close));
    // A `{` that is no bound (`a{x}`) is judged as a repetition all the same: the cautious reading.
    if (m) {
      const unbounded = m[2] !== undefined && m[3] === '';
      quantifier = { repeats: unbounded || Number(m[3] ?? m[1]) > 1, unbounded, varies: m[2] !== undefined && m[3] !== m[1], end: close };
    }
  }
  // Lazy: the same backtracking.
  return source[quantifier.end + 1] === '?' ? { ...quantifier, end: quantifier.end + 1 } : quantifier;
}

/**
 * Header values built to make a parser backtrack: runs of the characters its grammar loops
 * over, each ending in a character that makes the whole value fail late. Shared by the
 * linear-time tests and the header-parse benchmark.
 */

/** `unit` repeated up to `length` characters (cut to fit), then `tail`. */
function run(unit: string, length: number, head = '', tail = 'x'): string {
  const body = length - head.length - tail.length;
  return head + unit.repeat(Math.ceil(body / unit.length)).slice(0, body) + tail;
}

/** Hostile values of exactly `length` characters (latin1, as Node hands header bytes over), by name. */
export function hostileShapes(length: number): [name: string, value: string][] {
  return [
    ['comma then spaces', run(' ', length, ',')],
    ['spaces', run(' ', length)],
    ['tabs', run('\t', length)],
    ['commas', run(',', length)],
    ['comma-space pairs', run(', ', length)],
    ['quotes', run('"', length)],
    ['an unclosed quote', run('a', length, '"')],
    ['empty tags', run('"",', length, '', ' x')],
    ['W/ repeats', run('W/', length)],
    ['weak empty tags', run('W/"",', length, '', 'W/x')],
    ['digits', run('9', length)],
    ['digit-hyphen pairs', run('1-', length, 'bytes=')],
    ['equals signs', run('=', length)],
    ['semicolons', run(';', length)],
    ['equals-semicolon pairs', run('=;', length)],
    ['parameters', run(';a=b', length, 'text/html')],
    ['q-values', run(';q=0.5', length, 'a/b')],
    ['one long token', run('a', length, '', '')],
    ['dots', run('.', length)],
    ['colons', run(':', length)],
    ['slashes', run('/', length)],
    ['brackets', run('[', length)],
    ['list of addresses', run('10.0.0.1, ', length)],
    ['non-ASCII bytes', run('\u00e9\u00a0\u00ff\u0080', length)],
  ];
}

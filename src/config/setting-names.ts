/**
 * The names of the settings, and the setting a name that is none looks like a misspelling of
 * (`PORTT`, `POSTER_APi`, `WORKER`): what the start-up warnings say (setting-warnings.ts).
 */
import { parseConfig } from './config.js';
import { ConfigError } from './config-error.js';

/**
 * Every variable the settings table of config.ts reads, its derived rows included (BROKER_*,
 * ADMIN_HOST, TLS_CERT…): learnt by reading an environment where nothing is set and noting each
 * name asked for, so the table stays the one place that names them. With nothing set, every row
 * reads its variables and none reads a file (the test of this module pins that).
 */
export function readSettingNames(): ReadonlySet<string> {
  const names = new Set<string>();
  const recorder = new Proxy<Record<string, string | undefined>>({}, {
    get(_target, name) {
      if (typeof name === 'string') names.add(name);
      return undefined;
    },
  });
  try {
    parseConfig(recorder, '.', 1);
  } catch (err) {
    // Unset, a setting takes its default; were a default ever refused, its name was still read.
    if (!(err instanceof ConfigError)) throw err;
  }
  return names;
}

/** Whether a variable is written the way settings are (`PORT`, `LOG_DIR`), unlike `npm_config_cache` or `Path`. */
export function looksLikeASetting(name: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(name);
}

/** The edit distance up to which two names are near: 1 when the shorter has fewer than 5 characters (PORT), else 2. */
export function nearDistance(a: string, b: string): 1 | 2 {
  return Math.min(a.length, b.length) < 5 ? 1 : 2;
}

/**
 * The setting `name` looks like a misspelling of: one equal to it but for case (`POSTER_APi`),
 * else the nearest (the first in `settings`' order among the nearest) within nearDistance edits
 * (`PORTT`, `LOG_DIRR`, `HTSS_MAX_AGE`); undefined for a setting itself and for a name near none.
 */
export function nearSettingName(name: string, settings: Iterable<string>): string | undefined {
  const upper = name.toUpperCase();
  let nearest: string | undefined;
  let nearestDistance = Infinity;
  for (const setting of settings) {
    if (setting === name) return undefined;
    if (setting === upper) return setting;
    const limit = nearDistance(upper, setting);
    if (Math.abs(upper.length - setting.length) > limit) continue;
    const distance = editDistance(upper, setting);
    if (distance <= limit && distance < nearestDistance) {
      nearest = setting;
      nearestDistance = distance;
    }
  }
  return nearest;
}

/**
 * The Damerau-Levenshtein distance of `a` and `b` in its optimal-string-alignment form: the
 * insertions, deletions, substitutions and swaps of two neighbours that make one the other,
 * no character edited twice (`PORTT` → `PORT` 1, `PROT` → `PORT` 1, `HOME` → `HOST` 2).
 */
export function editDistance(a: string, b: string): number {
  // Three rows of the classic table: the one before the previous is for swaps.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, beforePrevious[j - 2]! + 1);
      row.push(best);
    }
    beforePrevious = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The core (problems, routing) imports nothing from the edge (`src/http/`), directly or through
 * another module, type-only imports included: the edge depends on the core, never the reverse.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';

const SRC = 'src';

/** The relative modules a source file imports (static, type-only, re-exported or dynamic), as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g)) {
    found.push(relative(SRC, join(SRC, dirname(file), match[1]!.replace(/\.js$/, '.ts'))));
  }
  return found;
}

/** Every module `file` reaches through its imports, itself excluded. */
function reachableFrom(file: string): Set<string> {
  const seen = new Set<string>();
  const pending = importsOf(file);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...importsOf(next));
  }
  return seen;
}

describe('the core', () => {
  for (const core of ['core/problem.ts', 'core/router.ts']) {
    it(`${core} reaches no module of http/`, () => {
      const edge = [...reachableFrom(core)].filter((module) => module.startsWith('http/'));
      assert.deepEqual(edge, [], `${core} reaches ${edge.join(', ')}`);
    });
  }
});

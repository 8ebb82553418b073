/**
 * SECURITY.md names a test for each claim (`test/x.test.ts › test name`): every one of them must
 * exist, so the document cannot drift from what is proven.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const doc = readFileSync('SECURITY.md', 'utf8').replace(/\n\s*/g, ' ');

/** `file › name` pairs, a bare `› name` taking the file named last before it. */
function references(): { file: string; name: string }[] {
  const found: { file: string; name: string }[] = [];
  let file = '';
  for (const m of doc.matchAll(/`(test\/[\w/.-]+\.ts)(?: › ([^`]+))?`|`› ([^`]+)`/g)) {
    if (m[1]) file = m[1];
    const name = m[2] ?? m[3];
    if (name) found.push({ file, name: name.trim() });
  }
  return found;
}

describe('SECURITY.md', () => {
  const refs = references();
  it('names tests for its claims', () => assert.ok(refs.length >= 40, `only ${refs.length} references`));
  it('names only test files that exist', () => {
    for (const file of new Set(doc.match(/test\/[\w/.-]+\.ts/g) ?? [])) assert.ok(existsSync(file), file);
  });
  it('names only tests that exist in the file it names', () => {
    for (const { file, name } of refs) {
      const source = readFileSync(file, 'utf8');
      // A test named literally, or a describe block, or a template whose fixed text matches.
      const literal = source.includes(`'${name}'`) || source.includes(`"${name}"`) || source.includes(name.replace(/'/g, "\\'"));
      const templated = /APP_ENV=\w+ APP_DEBUG=\d/.test(name) && source.includes('has no profiler with APP_ENV=${');
      assert.ok(literal || templated, `${file} has no test "${name}"`);
    }
  });
});

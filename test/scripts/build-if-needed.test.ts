import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';

const { isStale } = (await import(pathToFileURL(resolve('scripts/build-if-needed.mjs')).href)) as { isStale: (dir: string) => boolean };

/** A checkout in miniature: every file written with the given age in seconds. */
function checkout(files: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), 'build-if-needed-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const now = Date.now() / 1000;
  for (const [path, age] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), '');
    utimesSync(join(dir, path), now - age, now - age);
  }
  return dir;
}

const BUILT = { 'dist/server.js': 10, 'dist/app.js': 10 };
const INPUTS = { 'src/server.ts': 100, 'src/http/body.ts': 100, 'tsconfig.json': 100, 'tsconfig.build.json': 100 };

describe('build-if-needed', () => {
  it('leaves a build newer than everything it is built from', () => assert.equal(isStale(checkout({ ...INPUTS, ...BUILT })), false));

  for (const input of Object.keys(INPUTS)) {
    it(`builds again when ${input} is newer than dist/`, () => assert.equal(isStale(checkout({ ...INPUTS, ...BUILT, [input]: 1 })), true));
  }

  it('builds when dist/server.js is missing', () => {
    const files: Record<string, number> = { ...INPUTS, ...BUILT };
    delete files['dist/server.js'];
    assert.equal(isStale(checkout(files)), true);
  });
});

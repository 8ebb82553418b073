/**
 * The README's library example, run as a user would run it: its code block, with the package
 * name pointing at this checkout's src/index.ts, as an ES module of its own in a fresh directory.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { renderPoster } from '../src/poster/library.js';

const PACKAGE_NAME = 'problem-service';

/** The first ```js block after `marker` in the README, its indentation removed. */
function codeBlockAfter(marker: string): string {
  const readme = readFileSync('README.md', 'utf8');
  const at = readme.indexOf(marker);
  assert.notEqual(at, -1, `README.md has no ${JSON.stringify(marker)}`);
  const open = readme.indexOf('```js\n', at);
  assert.notEqual(open, -1, `README.md has no js code block after ${JSON.stringify(marker)}`);
  const lineStart = readme.lastIndexOf('\n', open) + 1;
  const indent = open - lineStart;
  const close = readme.indexOf('```', open + 6);
  return readme
    .slice(open + 6, close)
    .split('\n')
    .map((line) => line.slice(indent))
    .join('\n');
}

describe('README library example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'readme-example-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports renderPoster and writePoster, awaits them, and writes the poster it names', async () => {
    const code = codeBlockAfter('- Library:');
    assert.match(code, new RegExp(`^import \\{[^}]*\\brenderPoster\\b[^}]*\\} from '${PACKAGE_NAME}';$`, 'm'));
    const entry = pathToFileURL(resolve('src/index.ts')).href;
    writeFileSync(join(dir, 'example.mjs'), code.replace(`from '${PACKAGE_NAME}'`, `from '${entry}'`));
    const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), 'example.mjs'], { cwd: dir, encoding: 'utf8' });
    assert.equal(run.stderr, '');
    assert.equal(run.status, 0);
    const printed = /^(public\/posters\/[0-9a-f]{32}\.jpg) (\d+)\n$/.exec(run.stdout);
    assert.ok(printed, `the example printed ${JSON.stringify(run.stdout)}`);
    const expected = await renderPoster({ title: 'Año Nuevo', subtitle: 'en la azotea' });
    assert.equal(Number(printed[2]), expected.byteLength, 'renderPoster was not awaited: no byte length');
    assert.ok(existsSync(join(dir, printed[1]!)));
    assert.ok(readFileSync(join(dir, printed[1]!)).equals(expected), 'the written file is the rendered poster');
  });
});

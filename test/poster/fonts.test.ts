import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FontLoader, fontPath, packageRoot } from '../../src/poster/fonts.js';

describe('packageRoot', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'font-root-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the package from the source layout and from the compiled layout alike', () => {
    writeFileSync(join(dir, 'package.json'), '{}');
    for (const layout of ['src/render/font', 'dist/render/font']) {
      mkdirSync(join(dir, layout), { recursive: true });
      assert.equal(packageRoot(join(dir, layout)), dir, `root from ${layout}`);
    }
  });

  it('stops at the nearest package.json', () => {
    mkdirSync(join(dir, 'inner/lib'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{}');
    writeFileSync(join(dir, 'inner/package.json'), '{}');
    assert.equal(packageRoot(join(dir, 'inner/lib')), join(dir, 'inner'), 'nearest wins');
  });
});

describe('loadFont', () => {
  it('resolves the shipped fonts and their licence under assets/fonts', () => {
    for (const face of ['regular', 'bold'] as const) assert.ok(existsSync(fontPath(face)), `${face} font file exists`);
    assert.ok(existsSync(join(fontPath('regular'), '..', 'LICENSE-DejaVu.txt')), 'licence next to the fonts');
  });

  it('parses each face once per loader and shares it', async () => {
    const fonts = new FontLoader();
    assert.equal(await fonts.load('regular'), await fonts.load('regular'), 'same Font instance');
    assert.notEqual(await fonts.load('regular'), await fonts.load('bold'), 'faces differ');
    assert.notEqual(await new FontLoader().load('regular'), await fonts.load('regular'), 'another loader parses its own');
  });

  it('frees the files it read on release, and reads them again for a later load', async () => {
    const fonts = new FontLoader();
    const before = await fonts.load('regular');
    const advance = before.advanceWidth(before.glyphIndex(0x48));
    fonts.release();
    assert.throws(() => before.outline(before.glyphIndex(0x48)), TypeError, 'the released face has no bytes left to read');
    const after = await fonts.load('regular');
    assert.notEqual(after, before, 'parsed afresh');
    assert.equal(after.advanceWidth(after.glyphIndex(0x48)), advance, 'and whole');
    assert.ok(after.outline(after.glyphIndex(0x48)).length > 0, 'its glyphs draw');
  });
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import ts from 'typescript';
import { createStackMapper } from '../../src/profiler/source-maps.js';

/** `src/<name>.ts` compiled by tsc into `dist/<name>.js` with its map, as the build writes them. */
function build(root: string, name: string, source: string): string {
  const out = ts.transpileModule(source, {
    fileName: `${name}.ts`,
    compilerOptions: { sourceMap: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  const map = JSON.parse(out.sourceMapText!) as { sources: string[] };
  map.sources = [`../src/${name}.ts`];
  const js = join(root, 'dist', `${name}.js`);
  writeFileSync(join(root, 'src', `${name}.ts`), source);
  writeFileSync(js, out.outputText);
  writeFileSync(`${js}.map`, JSON.stringify(map));
  return js;
}

/** Line and column (1-based) of `needle` in compiled text. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const before = text.slice(0, text.indexOf(needle)).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

describe('createStackMapper', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'source-maps-'));
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'dist'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('rewrites frames of built files to their source line and column, and leaves other lines alone', () => {
    // The type annotations vanish in the build, so the columns of `throw` differ.
    const js = build(root, 'a', 'export function a(value: number): never {\n  const doubled: number = value * 2;\n  throw new Error(String(doubled));\n}\n');
    const at = positionOf(ts.sys.readFile(js)!, 'throw');
    const mapStack = createStackMapper();
    const stack = ['Error: 4', `    at a (${js}:${at.line}:${at.column})`, '    at node:internal/main:1:1', '    at /no/such/file.js:1:1'].join('\n');
    assert.equal(
      mapStack(stack),
      ['Error: 4', `    at a (${join(root, 'src', 'a.ts')}:3:3)`, '    at node:internal/main:1:1', '    at /no/such/file.js:1:1'].join('\n'),
    );
  });

  it('keeps at most maxMaps maps and still maps every file it let go of', () => {
    const a = build(root, 'a', 'export const a = (n: number): number => {\n  return n + 1;\n};\n');
    const b = build(root, 'b', '\n\nexport const b = (n: number): number => {\n  return n - 1;\n};\n');
    const frame = (file: string, needle: string) => {
      const at = positionOf(ts.sys.readFile(file)!, needle);
      return `    at f (${file}:${at.line}:${at.column})`;
    };
    const mapStack = createStackMapper(1);
    for (const round of [1, 2]) {
      assert.equal(mapStack(frame(a, 'return')), `    at f (${join(root, 'src', 'a.ts')}:2:3)`, `a, round ${round}`);
      assert.equal(mapStack(frame(b, 'return')), `    at f (${join(root, 'src', 'b.ts')}:4:3)`, `b, round ${round}`);
    }
  });
});

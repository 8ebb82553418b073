import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import ts from 'typescript';

// The bundler is a build script in JavaScript; its functions are taken as the build uses them.
interface Emitted {
  readonly files: Map<string, string>;
  readonly modules: string[];
}
interface EmitOptions {
  readonly entries: string[];
  readonly startId: string;
  readonly lazyId: string;
  readonly readSource: (id: string) => string;
  readonly readMap: (id: string) => unknown;
  readonly header: string[];
}
type SegmentLines = number[][][];
const load = (path: string) => import(pathToFileURL(resolve(path)).href);
const { emitBundle } = (await load('scripts/bundle/emit.mjs')) as { emitBundle: (options: EmitOptions) => Emitted };
const { decodeMappings, encodeMappings } = (await load('scripts/bundle/source-map.mjs')) as {
  decodeMappings: (mappings: string) => SegmentLines;
  encodeMappings: (lines: SegmentLines) => string;
};

const root = mkdtempSync(join(tmpdir(), 'bundle-'));
after(() => rmSync(root, { recursive: true, force: true }));

type Sources = Record<string, string>;

/** Bundles in-memory modules; `maps` gives some of them a source map. */
function bundle(sources: Sources, entries = ['server.js', 'index.js'], maps: Record<string, unknown> = {}): Emitted {
  return emitBundle({
    entries,
    startId: 'bundle.js',
    lazyId: 'bundle-lazy.js',
    readSource: (id) => {
      const source = sources[id];
      if (source === undefined) throw new Error(`no module ${id}`);
      return source;
    },
    readMap: (id) => maps[id],
    header: ['test bundle'],
  });
}

function writeTree(dir: string, files: Iterable<[string, string]>): void {
  for (const [id, text] of files) {
    mkdirSync(dirname(join(dir, id)), { recursive: true });
    writeFileSync(join(dir, id), text);
  }
}

/** Runs `node <args>` in `dir`; its stdout lines (fails on a non-zero exit). */
function run(dir: string, args: string[], env: Record<string, string> = {}): string[] {
  const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim().split('\n');
}

// A small program that exercises each form the bundler rewrites; every module says when it runs.
const PROGRAM: Sources = {
  'log.js': `export function log(line) {
    process.stdout.write(line + '\\n');
}
//# sourceMappingURL=log.js.map
`,
  'shared.js': `import { log } from './log.js';
let count = 0;
log('run shared');
export function bump() {
    return ++count;
}
export const shared = 'S';
`,
  'a.js': `import { log } from './log.js';
import { bump } from './shared.js';
log('run a');
bump();
const a = 'A';
function twice(n) {
    return n * 2;
}
export { a, twice };
`,
  // Imports below code: ES modules still run them first.
  'side.js': `log('run side, late is a ' + typeof late);
import { log } from './log.js';
import { late } from './late.js';
`,
  'late.js': `import { log } from './log.js';
log('run late');
export function late() {
}
`,
  'lazy/one.js': `import { bump } from '../shared.js';
import { log } from '../log.js';
log('run lazy/one');
export const name = 'one';
export function sharedCount() {
    return bump();
}
`,
  'throws.js': `import { log } from './log.js';
log('run throws');
throw new Error('boom');
`,
  'server.js': `import { log } from './log.js';
import { a, twice as double } from './a.js';
import './side.js';
import { readFileSync } from 'node:fs';
import path, { basename } from 'node:path';
export { shared as sharedAgain } from './shared.js';
log('run server ' + a + ' ' + double(2) + ' ' + basename(import.meta.url) + ' ' + typeof readFileSync + ' ' + typeof path.join);
const text = \`
import { x } from './nope.js';
export default 1;
\`;
log('template kept ' + text.includes("from './nope.js'"));
log('resolve ' + import.meta.resolve('./lazy/one.js').endsWith('/lazy/one.js'));
export const VALUE = 42;
export function later() {
    return import('./lazy/one.js');
}
if (process.env.GO_LAZY) {
    (async () => {
        const one = await later();
        log('lazy ' + one.name + ' ' + one.sharedCount());
        log('same instance ' + (one === await later()));
        for (const attempt of ['first', 'second']) {
            try {
                await import('./throws.js');
            }
            catch (e) {
                log(attempt + ' import of throws: ' + e.message);
            }
        }
    })();
}
`,
  'index.js': `export { VALUE, sharedAgain } from './server.js';
export { name } from './lazy/one.js';
`,
};

describe('the bundle step', () => {
  const plain = join(root, 'plain');
  const bundled = join(root, 'bundled');
  writeTree(plain, Object.entries({ ...PROGRAM, 'package.json': '{"type":"module"}' }));
  cpSync(plain, bundled, { recursive: true });
  const { files, modules } = bundle(PROGRAM);
  writeTree(bundled, files);
  /** What the program prints while it starts: its static imports run, then its own code. */
  const STARTING = [
    'run shared',
    'run a',
    'run late',
    'run side, late is a function',
    'run server A 4 server.js function function',
    'template kept true',
    'resolve true',
  ];

  it('runs the modules in the order and with the values ES modules give, one instance each, an error thrown once and kept', () => {
    const expected = [
      ...STARTING,
      'run lazy/one',
      'lazy one 2',
      'same instance true',
      'run throws',
      'first import of throws: boom',
      'second import of throws: boom',
    ];
    assert.deepEqual(run(plain, ['server.js'], { GO_LAZY: '1' }), expected);
    assert.deepEqual(run(bundled, ['server.js'], { GO_LAZY: '1' }), expected);
  });

  it('keeps modules reached only by import() out of the start chunk, and never reads the lazy chunk to start', () => {
    assert.deepEqual(modules, ['server.js', 'index.js', 'log.js', 'a.js', 'side.js', 'shared.js', 'lazy/one.js', 'throws.js', 'late.js']);
    const start = files.get('bundle.js') ?? '';
    const lazy = files.get('bundle-lazy.js') ?? '';
    assert.match(start, /^"a\.js": function/m);
    assert.doesNotMatch(start, /^"lazy\/one\.js"/m);
    assert.match(lazy, /^"lazy\/one\.js": function/m);
    assert.match(lazy, /^"throws\.js": function/m);
    const startOnly = join(root, 'start-only');
    cpSync(bundled, startOnly, { recursive: true });
    rmSync(join(startOnly, 'bundle-lazy.js'));
    assert.deepEqual(run(startOnly, ['server.js']), STARTING);
  });

  it('gives each entry a facade with the entry\'s exports, the lazy chunk imported when the entry needs it', () => {
    assert.equal(files.get('server.js'), [
      '// Generated by the build: the code of server.js runs from bundle.js, which holds the modules',
      '// of the service in one file (one file loads much faster than dozens).',
      'import { __bundle_load } from "./bundle.js";',
      'export const { sharedAgain, VALUE, later } = __bundle_load("server.js");',
      '',
    ].join('\n'));
    assert.match(files.get('index.js') ?? '', /^import "\.\/bundle-lazy\.js";$/m);
    const script = "import('./index.js').then((m) => console.log(Object.keys(m).join(','), m.VALUE, m.sharedAgain, m.name))";
    const expected = [
      ...STARTING,
      'run lazy/one',
      'VALUE,name,sharedAgain 42 S one',
    ];
    assert.deepEqual(run(plain, ['-e', script]), expected);
    assert.deepEqual(run(bundled, ['-e', script]), expected);
  });

  it('leaves no import or export statement in the chunks but its own, and blanks the modules\' map comments', () => {
    const start = files.get('bundle.js') ?? '';
    assert.deepEqual(start.split('\n').filter((l) => /^(import|export) /.test(l)), [
      "import { createRequire } from 'node:module';",
      'export const __bundle_require = createRequire(import.meta.url);',
      'export function __bundle_load(id) {',
      'export function __bundle_define(modules) {',
      'export function __bundle_import(id) {',
      'export function __bundle_metaOf(id) {',
      // The template's text in server.js, kept as it was.
      "import { x } from './nope.js';",
      'export default 1;',
    ]);
    assert.equal(start.match(/sourceMappingURL=/g)?.length, 1);
    assert.match(start, /\n\/\/# sourceMappingURL=bundle\.js\.map\n$/);
  });
});

describe('the service\'s build', () => {
  it('starts from one chunk without the poster encoder, poster, JWT, static file or profiler code', { timeout: 60_000 }, () => {
    const out = join(root, 'dist');
    const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', out], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout);
    const step = spawnSync(process.execPath, ['scripts/bundle.mjs', out], { encoding: 'utf8' });
    assert.equal(step.status, 0, step.stderr);
    const ids = (chunk: string) => [...readFileSync(join(out, chunk), 'utf8').matchAll(/^"([^"]+)": function/gm)].map((m) => m[1] ?? '');
    const start = ids('bundle.js');
    const lazy = ids('bundle-lazy.js');
    assert.match(step.stdout, new RegExp(`^bundled ${start.length + lazy.length} modules into `));
    assert.ok(start.includes('server.js') && start.includes('app.js') && start.includes('static/route.js') && start.includes('static.js'), start.join(' '));
    assert.deepEqual(start.filter((id) => /^(posterEncoder|poster|profiler|jwt)\/|^jwt\.js$/.test(id)), []);
    for (const id of ['profiler/index.js', 'poster/service.js', 'posterEncoder/jpeg/encode.js', 'jwt.js']) assert.ok(lazy.includes(id), `${id} is not in the lazy chunk`);
    assert.match(readFileSync(join(out, 'server.js'), 'utf8'), /^export const \{ STOP_GRACE_MS, startServer, createConfiguredFileLogger, main \} = __bundle_load\("server\.js"\);$/m);
    assert.equal(existsSync(join(out, 'server.js.map')), false, 'the entry kept a map of code that moved');
  });
});

describe('the bundle step refuses what it cannot keep exact', () => {
  const cases: [string, Sources, RegExp][] = [
    ['an import cycle', { 'server.js': "import { b } from './b.js';\nexport const a = 1;\n", 'b.js': "import { a } from './server.js';\nexport const b = 2;\n" }, /^import cycle: server\.js -> b\.js -> server\.js$/],
    ['an exported let, which could be reassigned', { 'server.js': 'export const ok = 1;\nexport let counter = 0;\n' }, /^server\.js:2: only exported functions, classes and consts are bundled$/],
    ['export default', { 'server.js': 'export default function () {}\n' }, /^server\.js:1: export default is not bundled$/],
    ['top-level await', { 'server.js': "const x = await Promise.resolve(1);\n" }, /^server\.js:1: top-level await is not bundled$/],
    ['a name the imported module does not export', { 'server.js': "import { missing } from './b.js';\n", 'b.js': 'export const b = 1;\n' }, /^server\.js: imports "missing", which b\.js does not export$/],
    ['a static import of a package', { 'server.js': "import { jwtVerify } from 'jose';\n" }, /^server\.js:1: static import of package "jose"/],
    ['import() of a computed specifier', { 'server.js': "export function f(n) {\n    return import('./' + n);\n}\n" }, /^server\.js:2: import\(\) of a computed specifier is not bundled$/],
    ['a name of the bundle\'s own', { 'server.js': 'const __bundle_load = 1;\n' }, /^server\.js:1: the name "__bundle_load" is reserved for the bundle$/],
    ['a module outside the build', { 'server.js': "import { x } from '../x.js';\n" }, /^server\.js: "\.\.\/x\.js" is not a module of the build$/],
  ];
  for (const [name, sources, message] of cases) {
    it(`refuses ${name}`, () => {
      assert.throws(() => bundle(sources, ['server.js']), (e: Error) => e.name === 'BundleError' && message.test(e.message));
    });
  }
});

describe('the bundle\'s source maps', () => {
  it('decodes and encodes base64 VLQ mappings to the same text', () => {
    const mappings = ';;AAAA,OAAO,EAAE,YAAY,EAAE,MAAM,SAAS,CAAC;AAGvC,MAAM,CAAC,MAAM,aAAa,GAAG,MAAM,CAAC;;AAEpC,gBAAgB;AAChB,yBAAyB,0BAA0B';
    const lines = decodeMappings(mappings);
    assert.deepEqual(lines[2]?.[1], [7, 0, 0, 7]);
    assert.equal(encodeMappings(lines), mappings);
  });

  it('points a stack trace under --enable-source-maps at the original file and line', () => {
    const dir = join(root, 'maps');
    const original = ["import { helper } from './helper.js';", '', 'export function fail(): never {', '  // the next line throws', "  throw new Error('from ' + helper());", '}', 'fail();', ''].join('\n');
    const helper = "export function helper(): string {\n  return 'helper';\n}\n";
    const compile = (name: string, text: string) => ts.transpileModule(text, { fileName: `src/${name}.ts`, compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, sourceMap: true } });
    const server = compile('server', original);
    const helperOut = compile('helper', helper);
    const sources = { 'server.js': server.outputText, 'helper.js': helperOut.outputText };
    const maps = {
      'server.js': { ...JSON.parse(server.sourceMapText ?? '{}'), sources: ['src/server.ts'] },
      'helper.js': { ...JSON.parse(helperOut.sourceMapText ?? '{}'), sources: ['src/helper.ts'] },
    };
    writeTree(dir, [['package.json', '{"type":"module"}'], ...bundle(sources, ['server.js'], maps).files]);
    const result = spawnSync(process.execPath, ['--enable-source-maps', 'server.js'], { cwd: dir, encoding: 'utf8' });
    assert.match(result.stderr, /Error: from helper\n\s+at fail \(.*\/maps\/src\/server\.ts:5:9\)/);
    assert.equal(JSON.parse(readFileSync(join(dir, 'bundle.js.map'), 'utf8')).sources.join(','), 'src/server.ts,src/helper.ts');
  });
});

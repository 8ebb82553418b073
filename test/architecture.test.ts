/**
 * The shape of src/, read with the TypeScript parser (no type checker, no build): the rules of
 * the style guide an auditor follows, each failure naming the file, the line and the rule.
 *
 * - no import cycle: every import counts, `import type`, `export … from` and `import('…')`
 *   (expression or type) included;
 * - doors: for a folder `X/` with an `X/index.ts`, a file outside `X/` imports `X/index.ts`, never
 *   another file inside `X/`, and no file inside `X/` imports `X/index.ts`;
 * - the root of src/ holds at most the library API, the process entry, the cluster primary;
 * - layers: each folder imports only from folders of a lower layer (LAYERS below);
 * - the core (`problem.ts`, `router.ts`) imports nothing from the edge (`http/`);
 * - no module state: a top-level binding, exported or not, is refused when it is
 *     `let` or `var`;
 *     a `const` whose value is built by `new`, a call, an array or an object literal (seen
 *       through parentheses, `satisfies` and `!`), unless it is marked read-only: `as const`,
 *       `Object.freeze(…)`, `Symbol(…)`, or a declared or asserted type spelled read-only
 *       (`readonly T[]`, `readonly [..]`, `Readonly<..>`, `ReadonlyArray`, `ReadonlyMap`,
 *       `ReadonlySet`) or a primitive (`string`, `number`, `boolean`: nothing in it can change);
 *     a regular expression literal with the `g` or `y` flag (its `lastIndex` is state);
 *   and a class's static property by the same rules (`readonly` standing for `const`).
 *   State belongs to an object a factory makes (createApp, startServer, an encoder, a worker).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

/**
 * Offences in files other branches are changing right now (src/http/, problem.ts,
 * problem-responder.ts, router.ts), as `<file> › <rule> › <subject>`: emptied when those
 * branches are merged. An entry that no longer offends fails the test, so the list only shrinks.
 */
const PENDING_IN_OTHER_BRANCHES: readonly string[] = [];

interface Offence {
  /** `<file> › <rule> › <subject>`: what PENDING_IN_OTHER_BRANCHES lists. */
  readonly key: string;
  /** `src/a.ts:12 [rule] what is wrong`. */
  readonly message: string;
}

interface Import {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

/** Every .ts file under `dir`, as paths relative to the project, `/`-separated. */
function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return entry.name.endsWith('.ts') ? [projectPath(path)] : [];
  });
}

const projectPath = (path: string) => relative(ROOT, path).split(sep).join('/');

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

const lineOf = (source: ts.SourceFile, node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

/** The src file a relative specifier names (`./a.js` is `./a.ts`), or undefined for a package. */
function resolveSpecifier(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const path = resolve(ROOT, dirname(file), specifier.replace(/\.js$/, '.ts'));
  return existsSync(path) ? projectPath(path) : undefined;
}

/** Every import of a file: declarations, re-exports, `import('…')` expressions and types. */
function importsOf(file: string, source: ts.SourceFile): Import[] {
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: ts.Node | undefined) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const to = resolveSpecifier(file, specifier.text);
    if (to) found.push({ from: file, to, line: lineOf(source, node) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** One offence per import cycle (a strongly connected component, Tarjan), naming its files in order. */
function cycles(files: readonly string[], imports: readonly Import[]): Offence[] {
  const edges = new Map<string, Import[]>(files.map((f) => [f, []]));
  for (const edge of imports) edges.get(edge.from)!.push(edge);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const offences: Offence[] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const { to } of edges.get(file)!) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = edges.get(file)!.find((e) => e.to === file);
    if (component.length === 1 && !selfImport) return;
    const inCycle = new Set(component);
    const closing = component.flatMap((f) => edges.get(f)!).find((e) => inCycle.has(e.to))!;
    offences.push({
      key: `${closing.from} › import cycle › ${[...component].sort().join(' ')}`,
      message: `${closing.from}:${closing.line} [import cycle] ${[...component].reverse().join(' -> ')} import each other`,
    });
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return offences;
}

/** Imports that go around a door, or back through it. */
function doorOffences(files: readonly string[], imports: readonly Import[]): Offence[] {
  const doors = files.filter((f) => f.endsWith('/index.ts'));
  const offences: Offence[] = [];
  for (const door of doors) {
    const folder = door.slice(0, -'index.ts'.length);
    for (const { from, to, line } of imports) {
      if (to.startsWith(folder) && to !== door && !from.startsWith(folder)) {
        offences.push({ key: `${from} › door › ${to}`, message: `${from}:${line} [door] imports ${to}; outside ${folder} import ${door} only` });
      }
      if (from.startsWith(folder) && to === door) {
        offences.push({ key: `${from} › door › ${to}`, message: `${from}:${line} [door] imports its own door ${door}; inside ${folder} import the file itself` });
      }
    }
  }
  return offences;
}

/** The files the root of src/ may hold: the library API, the process entry, the cluster primary. */
const ROOT_FILES: ReadonlySet<string> = new Set(['src/index.ts', 'src/server.ts', 'src/cluster.ts']);

/** Files at the root of src/ beyond those. */
function rootOffences(files: readonly string[]): Offence[] {
  return files
    .filter((f) => f.split('/').length === 2 && !ROOT_FILES.has(f))
    .map((f) => ({ key: `${f} › root › ${f}`, message: `${f}:1 [root] stands at the root of src/; put it in the folder of its concern` }));
}

/**
 * The layers, lowest first: a file imports only from its own folder or a lower layer, never
 * from one beside it or above it. `index` and `server` are the library API and the process entry.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['util'],
  ['tls'],
  ['core', 'config', 'metrics', 'jpeg'],
  ['log', 'store', 'redis', 'render', 'jwt'],
  ['http'],
  ['static', 'poster'],
  ['app'],
  ['profiler', 'ops'],
  ['cli', 'cluster'],
  ['server'],
  ['index'],
];
const RANK: ReadonlyMap<string, number> = new Map(LAYERS.flatMap((names, rank) => names.map((name) => [name, rank] as const)));

/** `src/http/request.ts` -> `http`, `src/server.ts` -> `server`. */
const unitOf = (file: string) => file.split('/')[1]!.replace(/\.ts$/, '');

/** Imports that go up a layer or across to another folder of the same layer; folders with no layer. */
function layerOffences(files: readonly string[], imports: readonly Import[]): Offence[] {
  const unlisted = [...new Set(files.map(unitOf))].filter((unit) => !RANK.has(unit));
  const offences: Offence[] = unlisted.map((unit) => ({ key: `src/${unit} › layer › none`, message: `src/${unit}:1 [layer] has no layer; add it to LAYERS` }));
  for (const { from, to, line } of imports) {
    const [a, b] = [unitOf(from), unitOf(to)];
    if (a === b || !RANK.has(a) || !RANK.has(b)) continue;
    if (RANK.get(b)! >= RANK.get(a)!) {
      offences.push({ key: `${from} › layer › ${to}`, message: `${from}:${line} [layer] imports ${to}; ${a}/ may import only from a lower layer than its own` });
    }
  }
  return offences;
}

/** The core's imports from the edge. */
function coreOffences(imports: readonly Import[]): Offence[] {
  return imports
    .filter(({ from, to }) => (from === 'src/core/problem.ts' || from === 'src/core/router.ts') && to.startsWith('src/http/'))
    .map(({ from, to, line }) => ({ key: `${from} › core imports edge › ${to}`, message: `${from}:${line} [core imports edge] imports ${to}; the core imports nothing from src/http/` }));
}

const PRIMITIVE_TYPES: ReadonlySet<ts.SyntaxKind> = new Set([ts.SyntaxKind.StringKeyword, ts.SyntaxKind.NumberKeyword, ts.SyntaxKind.BooleanKeyword]);
const READONLY_TYPE_NAMES: ReadonlySet<string> = new Set(['Readonly', 'ReadonlyArray', 'ReadonlyMap', 'ReadonlySet']);

function isReadonlyType(type: ts.TypeNode | undefined): boolean {
  if (!type) return false;
  if (ts.isTypeOperatorNode(type)) return type.operator === ts.SyntaxKind.ReadonlyKeyword;
  if (ts.isTypeReferenceNode(type)) return ts.isIdentifier(type.typeName) && READONLY_TYPE_NAMES.has(type.typeName.text);
  if (ts.isParenthesizedTypeNode(type)) return isReadonlyType(type.type);
  return PRIMITIVE_TYPES.has(type.kind);
}

/** Why a top-level value may be mutable, or undefined when it is a constant by the rule above. */
function mutableValue(initializer: ts.Expression | undefined, declared: ts.TypeNode | undefined): string | undefined {
  if (!initializer || isReadonlyType(declared)) return undefined;
  let value = initializer;
  for (;;) {
    if (ts.isAsExpression(value)) {
      if (ts.isConstTypeReference(value.type) || isReadonlyType(value.type)) return undefined;
      value = value.expression;
    } else if (ts.isParenthesizedExpression(value) || ts.isSatisfiesExpression(value) || ts.isNonNullExpression(value)) {
      value = value.expression;
    } else break;
  }
  if (ts.isRegularExpressionLiteral(value)) {
    const flags = value.text.slice(value.text.lastIndexOf('/') + 1);
    return flags.includes('g') || flags.includes('y') ? 'a regular expression with lastIndex (flag g or y)' : undefined;
  }
  if (ts.isCallExpression(value)) {
    const callee = value.expression.getText();
    if (callee === 'Object.freeze' || callee === 'Symbol') return undefined;
    return `the result of ${callee}(…)`;
  }
  if (ts.isNewExpression(value)) return `a new ${value.expression.getText()}`;
  if (ts.isArrayLiteralExpression(value)) return 'an array';
  if (ts.isObjectLiteralExpression(value)) return 'an object';
  return undefined;
}

/** Module-level bindings that can hold state. */
function stateOffences(file: string, source: ts.SourceFile): Offence[] {
  const offences: Offence[] = [];
  const refuse = (node: ts.Node, name: string, why: string) =>
    offences.push({
      key: `${file} › module state › ${name}`,
      message: `${file}:${lineOf(source, node)} [module state] ${name} is ${why} at module level; give it to an object a factory makes, or mark it read-only`,
    });
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText(source);
        if (!isConst) refuse(declaration, name, 'a let or var');
        else {
          const why = mutableValue(declaration.initializer, declaration.type);
          if (why) refuse(declaration, name, why);
        }
      }
    }
    if (ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        if (!ts.isPropertyDeclaration(member) || !member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword)) continue;
        const name = `${statement.name?.text ?? 'class'}.${member.name.getText(source)}`;
        const isReadonly = member.modifiers.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword);
        if (!isReadonly) refuse(member, name, 'a static property that is not readonly');
        else {
          const why = mutableValue(member.initializer, member.type);
          if (why) refuse(member, name, why);
        }
      }
    }
  }
  return offences;
}

/** Every offence in src/, in file order. */
function auditSources(): Offence[] {
  const files = listSources(SRC).sort();
  const sources = new Map(files.map((f) => [f, parse(f)]));
  const imports = files.flatMap((f) => importsOf(f, sources.get(f)!));
  return [
    ...cycles(files, imports),
    ...doorOffences(files, imports),
    ...rootOffences(files),
    ...layerOffences(files, imports),
    ...coreOffences(imports),
    ...files.flatMap((f) => stateOffences(f, sources.get(f)!)),
  ];
}

describe('the architecture of src/', () => {
  const offences = auditSources();
  const pending = new Set(PENDING_IN_OTHER_BRANCHES);

  it('has no import cycle, no import around or back through a door, no upward import, no core import of the edge, no module state', () => {
    const unexpected = offences.filter((o) => !pending.has(o.key)).map((o) => o.message);
    assert.deepEqual(unexpected, [], `\n${unexpected.join('\n')}\n`);
  });

  it('lists in PENDING_IN_OTHER_BRANCHES only offences that are still there', () => {
    const found = new Set(offences.map((o) => o.key));
    const stale = PENDING_IN_OTHER_BRANCHES.filter((key) => !found.has(key));
    assert.deepEqual(stale, [], `no longer offending, remove from PENDING_IN_OTHER_BRANCHES:\n${stale.join('\n')}\n`);
  });
});

// What the bundler needs to know of one compiled module: its imports (ours, and Node's built-in
// modules), what it exports, its dynamic imports and its uses of import.meta, each with the exact
// source range to rewrite. Read with the TypeScript parser (a build-time dependency), never with
// patterns, so a string or template that looks like an import is left alone.
//
// Only the forms tsc emits from our sources are handled; anything else (export default, export
// let, a namespace import of our own module, top-level await, a static import of a package) is a
// BundleError naming the file and line, so the bundle never changes a module's meaning quietly.
import ts from 'typescript';
import { posix } from 'node:path';

export class BundleError extends Error {
  name = 'BundleError';
}

/** Where a node starts, as `file:line`. */
function at(id, file, node) {
  return `${id}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
}

/** Resolves `./x.js` or `../x.js` against the id (a path relative to the build root) of the module that imports it. */
export function resolveSpecifier(fromId, specifier) {
  const id = posix.normalize(posix.join(posix.dirname(fromId), specifier));
  if (id.startsWith('../') || !id.endsWith('.js')) throw new BundleError(`${fromId}: "${specifier}" is not a module of the build`);
  return id;
}

const isRelative = (specifier) => specifier.startsWith('./') || specifier.startsWith('../');

/** `{ a, b as c }` as `[{ imported: 'a', local: 'a' }, { imported: 'b', local: 'c' }]`. */
function namedBindings(elements) {
  return elements.map((e) => ({ imported: (e.propertyName ?? e.name).text, local: e.name.text }));
}

/**
 * The shape of module `id` (its path relative to the build root, e.g. `poster/pool.js`):
 * - `imports`: static imports and re-exports in source order, `{ start, end, id, bindings }` for ours,
 *   `{ start, end, builtin, defaultLocal, bindings }` for Node's built-in modules;
 * - `exports`: exported name -> `{ local }` or `{ from: id, imported }` (a re-export);
 * - `dynamicImports`: `{ start, end, id }` for ours, left as they are for packages and built-ins;
 * - `metas`: `{ start, end }` of each `import.meta`;
 * - `blanks`: `{ start, end }` ranges (export keywords, local export lists, the source map comment)
 *   to overwrite with spaces, which keeps every line and column where the module's map says.
 */
export function moduleShape(id, source) {
  const file = ts.createSourceFile(id, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const shape = { id, imports: [], exports: new Map(), dynamicImports: [], metas: [], blanks: [] };
  const exportAs = (name, target, node) => {
    if (shape.exports.has(name)) throw new BundleError(`${at(id, file, node)}: "${name}" is exported twice`);
    shape.exports.set(name, target);
  };
  for (const statement of file.statements) topLevel(statement);
  walk(file, 0);
  const mapComment = /\n\/\/# sourceMappingURL=[^\n]*\n?$/.exec(source);
  if (mapComment) shape.blanks.push({ start: mapComment.index + 1, end: source.length });
  return shape;

  function topLevel(statement) {
    const range = { start: statement.getStart(file), end: statement.end };
    if (ts.isImportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      if (named && ts.isNamespaceImport(named)) throw new BundleError(`${at(id, file, statement)}: namespace imports are not bundled`);
      const bindings = named ? namedBindings(named.elements) : [];
      if (isRelative(specifier)) {
        if (clause?.name) throw new BundleError(`${at(id, file, statement)}: default imports of our modules are not bundled`);
        shape.imports.push({ ...range, id: resolveSpecifier(id, specifier), bindings });
      } else if (specifier.startsWith('node:')) {
        shape.imports.push({ ...range, builtin: specifier, defaultLocal: clause?.name?.text, bindings });
      } else {
        throw new BundleError(`${at(id, file, statement)}: static import of package "${specifier}" (import it dynamically, where it is needed)`);
      }
      return;
    }
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause || !ts.isNamedExports(clause)) throw new BundleError(`${at(id, file, statement)}: export * is not bundled`);
      const bindings = namedBindings(clause.elements);
      if (statement.moduleSpecifier) {
        const from = resolveSpecifier(id, statement.moduleSpecifier.text);
        shape.imports.push({ ...range, id: from, bindings: [], reexport: true });
        for (const b of bindings) exportAs(b.local, { from, imported: b.imported }, statement);
      } else {
        shape.blanks.push(range);
        for (const b of bindings) exportAs(b.local, { local: b.imported }, statement);
      }
      return;
    }
    if (ts.isExportAssignment(statement)) throw new BundleError(`${at(id, file, statement)}: export default is not bundled`);
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) ?? [] : [];
    const exportKeyword = modifiers.find((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exportKeyword) return;
    if (modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) throw new BundleError(`${at(id, file, statement)}: export default is not bundled`);
    shape.blanks.push({ start: exportKeyword.getStart(file), end: exportKeyword.end });
    for (const name of declaredNames(statement)) exportAs(name, { local: name }, statement);
  }

  function declaredNames(statement) {
    if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) return [statement.name.text];
    if (ts.isVariableStatement(statement) && statement.declarationList.flags & ts.NodeFlags.Const) {
      return statement.declarationList.declarations.map((d) => {
        if (!ts.isIdentifier(d.name)) throw new BundleError(`${at(id, file, statement)}: exported destructuring is not bundled`);
        return d.name.text;
      });
    }
    // An exported let or var could be reassigned, and the bundle does not keep live bindings.
    throw new BundleError(`${at(id, file, statement)}: only exported functions, classes and consts are bundled`);
  }

  function walk(node, functionDepth) {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (!argument || !ts.isStringLiteralLike(argument)) throw new BundleError(`${at(id, file, node)}: import() of a computed specifier is not bundled`);
      if (isRelative(argument.text)) shape.dynamicImports.push({ start: node.getStart(file), end: node.end, id: resolveSpecifier(id, argument.text) });
    } else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) {
      const property = ts.isPropertyAccessExpression(node.parent) ? node.parent.name.text : undefined;
      if (property !== 'url' && property !== 'resolve') throw new BundleError(`${at(id, file, node)}: only import.meta.url and import.meta.resolve are bundled`);
      shape.metas.push({ start: node.getStart(file), end: node.end });
    } else if (functionDepth === 0 && (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier))) {
      throw new BundleError(`${at(id, file, node)}: top-level await is not bundled`);
    } else if (ts.isIdentifier(node) && node.text.startsWith('__bundle')) {
      throw new BundleError(`${at(id, file, node)}: the name "${node.text}" is reserved for the bundle`);
    }
    const depth = ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node) ? functionDepth + 1 : functionDepth;
    ts.forEachChild(node, (child) => walk(child, depth));
  }
}

// The bundle itself: every module reachable from the entries (static and dynamic imports alike)
// becomes a function in one file, run the first time the module is needed, exactly once, in the
// order ES modules would run; each entry file becomes a small facade with the entry's exports.
// Node then reads, resolves and links one module instead of dozens, which was most of the
// service's start-up time. Pure: module sources in, file texts out.
import { posix } from 'node:path';
import { BundleError, moduleShape } from './module-shape.mjs';
import { joinSourceMaps } from './source-map.mjs';

/** Runtime part of the bundle: the module table's loader, dynamic import, import.meta per module. */
const LOADER = (lazyPath) => `import { createRequire } from 'node:module';
export const __bundle_require = createRequire(import.meta.url);
const __bundle_records = new Map();
/** A module's exports, running its code on first use; a module that threw throws the same error again. */
export function __bundle_load(id) {
  let record = __bundle_records.get(id);
  if (record === undefined) {
    record = { exports: Object.create(null), failed: false, error: undefined };
    __bundle_records.set(id, record);
    const run = __bundle_defined[id];
    try {
      run(record.exports);
    } catch (error) {
      record.failed = true;
      record.error = error;
      throw error;
    }
  } else if (record.failed) {
    throw record.error;
  }
  return record.exports;
}
/** Adds the lazy chunk's modules to the table. */
export function __bundle_define(modules) {
  Object.assign(__bundle_defined, modules);
}
/** import() of one of our modules: reads the lazy chunk first if the module is there, runs it after the current job. */
export function __bundle_import(id) {
  const ready = Object.hasOwn(__bundle_defined, id) ? Promise.resolve() : import(${quote(lazyPath)});
  return ready.then(() => __bundle_load(id));
}
/** import.meta of a module as if it were still its own file. */
export function __bundle_metaOf(id) {
  const url = new URL(id, import.meta.url).href;
  const resolve = (specifier) => import.meta.resolve(/^\\.\\.?\\//.test(specifier) ? new URL(specifier, url).href : specifier);
  return { url, resolve };
}
`;

const quote = (text) => JSON.stringify(text);
const destructure = (bindings) => `{ ${bindings.map((b) => (b.imported === b.local ? b.local : `${b.imported}: ${b.local}`)).join(', ')} }`;
const newlinesIn = (text) => text.split('\n').length - 1;
/** Spaces for every character but newlines, so lines and columns stay where the source map says. */
const blank = (text) => text.replace(/[^\n]/g, ' ');

/** The statement that does what one import did. */
function importReplacement(entry, reexportName) {
  if (entry.builtin) {
    const parts = [];
    if (entry.defaultLocal) parts.push(`const ${entry.defaultLocal} = __bundle_require(${quote(entry.builtin)});`);
    if (entry.bindings.length > 0) parts.push(`const ${destructure(entry.bindings)} = __bundle_require(${quote(entry.builtin)});`);
    return parts.join(' ');
  }
  if (entry.reexport) return `const ${reexportName} = __bundle_load(${quote(entry.id)});`;
  if (entry.bindings.length === 0) return `__bundle_load(${quote(entry.id)});`;
  return `const ${destructure(entry.bindings)} = __bundle_load(${quote(entry.id)});`;
}

/**
 * The module's code with its imports, exports, import() and import.meta rewritten, every line
 * where it was; and its prologue: its exports' getters, its import.meta, its imports.
 */
function rewrite(shape, source) {
  const edits = [];
  let reexports = 0;
  const reexportNames = new Map();
  // Imports run before the module's own code, wherever they stand, as ES modules hoist them:
  // they move to the prologue in their order, and their statements become blank.
  const imports = [];
  for (const entry of shape.imports) {
    const name = entry.reexport ? `__bundle_reexport${reexports++}` : undefined;
    if (name) reexportNames.set(entry.id, name);
    imports.push(importReplacement(entry, name));
    edits.push({ start: entry.start, end: entry.end, text: blank(source.slice(entry.start, entry.end)) });
  }
  for (const d of shape.dynamicImports) edits.push({ start: d.start, end: d.end, text: `__bundle_import(${quote(d.id)})` });
  for (const m of shape.metas) edits.push({ start: m.start, end: m.end, text: '__bundle_meta' });
  for (const b of shape.blanks) edits.push({ start: b.start, end: b.end, text: blank(source.slice(b.start, b.end)) });
  edits.sort((a, b) => b.start - a.start);
  let code = source;
  for (const edit of edits) {
    const original = code.slice(edit.start, edit.end);
    code = code.slice(0, edit.start) + edit.text + '\n'.repeat(newlinesIn(original) - newlinesIn(edit.text)) + code.slice(edit.end);
  }
  const getters = [...shape.exports].map(([name, target]) => {
    const value = target.local ?? `${reexportNames.get(target.from)}.${target.imported}`;
    return `${quote(name)}: { get: () => ${value}, enumerable: true }`;
  });
  const prologue = [
    `Object.freeze(Object.defineProperties(__bundle_exports, { ${getters.join(', ')} }));`,
    ...(shape.metas.length > 0 ? [`const __bundle_meta = __bundle_metaOf(${quote(shape.id)});`] : []),
    ...imports,
  ].join(' ');
  return { prologue, code: code.endsWith('\n') ? code : `${code}\n` };
}

/** Every module reachable from the entries, in the order first reached; shapes by id. */
function collect(entries, readSource) {
  const shapes = new Map();
  const pending = [...entries];
  while (pending.length > 0) {
    const id = pending.shift();
    if (shapes.has(id)) continue;
    const shape = moduleShape(id, readSource(id));
    shapes.set(id, shape);
    for (const entry of shape.imports) if (entry.id) pending.push(entry.id);
    for (const d of shape.dynamicImports) pending.push(d.id);
  }
  return shapes;
}

/** Static imports must form no cycle: the bundle runs a module's imports to completion before it. */
function checkAcyclic(shapes) {
  const state = new Map();
  const visit = (id, path) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'open') throw new BundleError(`import cycle: ${[...path.slice(path.indexOf(id)), id].join(' -> ')}`);
    state.set(id, 'open');
    for (const entry of shapes.get(id).imports) if (entry.id) visit(entry.id, [...path, id]);
    state.set(id, 'done');
  };
  for (const id of shapes.keys()) visit(id, []);
}

/** Every name imported from one of our modules must be one it exports (ES modules fail at link time). */
function checkImportedNames(shapes) {
  for (const shape of shapes.values()) {
    for (const entry of shape.imports) {
      if (!entry.id) continue;
      for (const b of entry.bindings) {
        if (!shapes.get(entry.id).exports.has(b.imported)) throw new BundleError(`${shape.id}: imports "${b.imported}", which ${entry.id} does not export`);
      }
    }
    for (const [name, target] of shape.exports) {
      if (target.from && !shapes.get(target.from).exports.has(target.imported)) throw new BundleError(`${shape.id}: re-exports "${name}", which ${target.from} does not export`);
    }
  }
}

/** The modules `from` needs before it can run: it and its static imports, transitively. */
function staticClosure(shapes, from) {
  const seen = new Set();
  const visit = (id) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const entry of shapes.get(id).imports) if (entry.id) visit(entry.id);
  };
  visit(from);
  return seen;
}

/** A module's source map with its sources made relative to the chunk's directory. */
function relocatedMap(id, map, chunkId) {
  const from = posix.dirname(id);
  const to = posix.dirname(chunkId);
  return { ...map, sources: map.sources.map((s) => posix.relative(to, posix.join(from, s))) };
}

const relativeImport = (fromId, toId) => {
  const path = posix.relative(posix.dirname(fromId), toId);
  return path.startsWith('.') ? path : `./${path}`;
};

/** One chunk: its opening lines, then each module as a function, then its source map comment. */
function emitChunk(chunkId, opening, closing, ids, shapes, readSource, readMap) {
  const lines = [...opening];
  const maps = [];
  for (const id of ids) {
    const { prologue, code } = rewrite(shapes.get(id), readSource(id));
    lines.push(`${quote(id)}: function (__bundle_exports) { ${prologue}`);
    const map = readMap(id);
    if (map) maps.push({ line: lines.length, map: relocatedMap(id, map, chunkId) });
    lines.push(...code.slice(0, -1).split('\n'), '},');
  }
  lines.push(...closing, `//# sourceMappingURL=${posix.basename(chunkId)}.map`, '');
  return { text: lines.join('\n'), map: joinSourceMaps(posix.basename(chunkId), maps) };
}

/**
 * Bundles the modules reachable from `entries` (ids such as `server.js`: paths relative to the
 * build root) into two chunks: `startId` holds what the first entry (the program) needs to start,
 * `lazyId` the modules only reached through import() (profiler, poster service, static files),
 * read the first time one of them is imported, so the program does not parse them to start.
 * `readSource(id)` gives a module's compiled code, `readMap(id)` its source map or undefined.
 * Returns `{ files, modules }`: the text of every file to write by id (chunks, their source maps,
 * one facade per entry with the entry's exports), and the ids bundled.
 */
export function emitBundle({ entries, startId, lazyId, readSource, readMap, header }) {
  const shapes = collect(entries, readSource);
  for (const id of [startId, lazyId]) if (shapes.has(id)) throw new BundleError(`a module is already named ${id}`);
  checkAcyclic(shapes);
  checkImportedNames(shapes);
  const starting = staticClosure(shapes, entries[0]);
  const comment = header.map((l) => `// ${l}`);
  const start = emitChunk(startId, [...comment, ...LOADER(relativeImport(startId, lazyId)).split('\n').slice(0, -1), 'const __bundle_defined = {'], ['};'],
    [...shapes.keys()].filter((id) => starting.has(id)), shapes, readSource, readMap);
  const lazy = emitChunk(lazyId, [
    ...comment,
    `import { __bundle_define, __bundle_import, __bundle_load, __bundle_metaOf, __bundle_require } from ${quote(relativeImport(lazyId, startId))};`,
    '__bundle_define({',
  ], ['});'], [...shapes.keys()].filter((id) => !starting.has(id)), shapes, readSource, readMap);
  const files = new Map([
    [startId, start.text], [`${startId}.map`, `${JSON.stringify(start.map)}\n`],
    [lazyId, lazy.text], [`${lazyId}.map`, `${JSON.stringify(lazy.map)}\n`],
  ]);
  for (const id of entries) {
    const needsLazy = [...staticClosure(shapes, id)].some((m) => !starting.has(m));
    files.set(id, facade(id, startId, needsLazy ? lazyId : undefined, [...shapes.get(id).exports.keys()]));
  }
  return { files, modules: [...shapes.keys()] };
}

/** An entry's file: its exports, taken from the bundle. */
function facade(id, startId, lazyId, names) {
  return [
    `// Generated by the build: the code of ${id} runs from ${posix.basename(startId)}, which holds the modules`,
    '// of the service in one file (one file loads much faster than dozens).',
    `import { __bundle_load } from ${quote(relativeImport(id, startId))};`,
    ...(lazyId ? [`import ${quote(relativeImport(id, lazyId))};`] : []),
    `export const { ${names.join(', ')} } = __bundle_load(${quote(id)});`,
    '',
  ].join('\n');
}

/**
 * Stack frames of the built service (`dist/*.js`) mapped back to `src/*.ts` through the source
 * maps the build writes beside each file. Dev only: read lazily on an error page, so the service
 * never pays for maps at start-up (Node's own source-map support would load every map then).
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { parseFrameLocation } from '../util/stack-frames.js';

/**
 * Most generated files whose maps one mapper keeps (the oldest read goes first): the build has
 * about a hundred, and a frame of any other file (node:internal, node_modules) is kept as "none".
 */
export const MAX_SOURCE_MAPS = 256;

/**
 * A stack mapper (one per profiler): rewrites each frame in a mapped file to its source file,
 * line and column. It keeps the maps it read, at most `maxMaps`, because an error page maps a
 * dozen frames of the same few files and a map costs a read and a parse.
 */
export function createStackMapper(maxMaps = MAX_SOURCE_MAPS): (stack: string) => string {
  /** Maps read so far, by generated file; null when a file has none. */
  const maps = new Map<string, SourceMap | null>();

  const mapOf = (file: string): SourceMap | undefined => {
    let map = maps.get(file);
    if (map === undefined) {
      map = readSourceMap(file);
      maps.set(file, map);
      if (maps.size > maxMaps) maps.delete(maps.keys().next().value!);
    }
    return map ?? undefined;
  };

  return (stack) =>
    stack
      .split('\n')
      .map((line) => {
        const frame = parseFrameLocation(line);
        const map = frame ? mapOf(frame.file) : undefined;
        if (!frame || !map) return line;
        const entry = map.findEntry(frame.line - 1, frame.column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
        if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return line;
        const source = resolve(dirname(frame.file), entry.originalSource);
        return `${line.slice(0, frame.start)}${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}${line.slice(frame.end)}`;
      })
      .join('\n');
}

/** The source map beside a generated `.js` file, or null: none, or not one Node can read. */
function readSourceMap(file: string): SourceMap | null {
  if (!file.endsWith('.js')) return null;
  try {
    return new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    return null; // the frame stays as it is
  }
}

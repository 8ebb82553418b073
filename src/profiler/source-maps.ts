/**
 * Stack frames of the built service (`dist/*.js`) mapped back to `src/*.ts` through the source
 * maps the build writes beside each file. Dev only: read lazily on an error page, so the service
 * never pays for maps at start-up (Node's own source-map support would load every map then).
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { parseFrameLocation } from '../util/stack-frames.js';

/** Maps read so far, by generated file; null when a file has none. */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | undefined {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = file.endsWith('.js') ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) : null;
    } catch {
      map = null; // no map, or not one Node can read: the frame stays as it is
    }
    maps.set(file, map);
  }
  return map ?? undefined;
}

/** The stack with each frame in a mapped file rewritten to its source file, line and column. */
export function mapStackToSources(stack: string): string {
  return stack
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

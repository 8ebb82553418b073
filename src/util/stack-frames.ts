/**
 * Stack trace frames (`    at f (file:///p/src/a.ts:3:9)`, `    at /p/a.js:3:9`), read by
 * position from the end of the line: a message line or anything else is not a frame.
 */

export interface FrameLocation {
  /** A file path (a `file:` URL is turned into one). */
  readonly file: string;
  /** 1-based, as printed. */
  readonly line: number;
  readonly column: number;
  /** Where `location` text starts and ends in the line, for replacing or linking it. */
  readonly start: number;
  readonly end: number;
}

/** The `path:line:column` of a stack frame line, or undefined when the line is not a frame. */
export function parseFrameLocation(line: string): FrameLocation | undefined {
  if (!line.trimStart().startsWith('at ')) return undefined;
  const end = line.endsWith(')') ? line.length - 1 : line.length;
  const open = line.lastIndexOf('(', end);
  const start = open >= 0 ? open + 1 : line.indexOf('at ') + 3;
  const location = line.slice(start, end);
  const columnColon = location.lastIndexOf(':');
  const lineColon = location.lastIndexOf(':', columnColon - 1);
  if (lineColon <= 0) return undefined;
  const lineNumber = Number(location.slice(lineColon + 1, columnColon));
  const column = Number(location.slice(columnColon + 1));
  if (!Number.isInteger(lineNumber) || lineNumber < 1 || !Number.isInteger(column) || column < 1) return undefined;
  let file = location.slice(0, lineColon);
  if (file.startsWith('file://')) {
    try {
      file = decodeURIComponent(new URL(file).pathname);
    } catch {
      return undefined;
    }
  }
  return { file, line: lineNumber, column, start, end };
}

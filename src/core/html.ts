/**
 * The small HTML the service writes: escaping and one page layout with no external assets.
 */

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE =
  'body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1d2330;background:#f4f5f8}' +
  'main{max-width:56rem;margin:3rem auto;padding:0 1.5rem}' +
  'h1{font-size:1.9rem;margin:0 0 .5rem}h2{font-size:1.1rem;margin:2rem 0 .5rem}' +
  // overflow-wrap:anywhere breaks a long token only where it must, never every word mid-way.
  '.status{color:#8a1c2b;font-weight:600;margin:0}.detail{font-size:1.15rem;overflow-wrap:anywhere}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}' +
  'dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere;min-width:0;font-family:ui-monospace,monospace}' +
  'pre{background:#fff;border:1px solid #d8dbe3;padding:1rem;overflow:auto;font-size:.85rem}' +
  'a{color:#1f4fd1}';

/** A whole page; `title` is text (escaped here), `body` is HTML already escaped by the caller. */
export function renderPage(title: string, body: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="UTF-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><main>${body}</main></body></html>\n`
  );
}

/** A definition list from [term, text] pairs, every text escaped. */
export function renderDefinitions(rows: readonly (readonly [string, string])[]): string {
  return `<dl>${rows.map(([term, text]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(text)}</dd>`).join('')}</dl>`;
}

import { parseFrameLocation } from '../util/stack-frames.js';

/** Where a stack frame's source can be opened: a link for a project file, else undefined. */
export type SourceLink = (file: string, line: number) => string | undefined;

/**
 * A stack trace as HTML: every line escaped; in each `at …` frame the `file:line:column`
 * location becomes a link when `sourceLink` knows the file (`/_profiler/open` in dev).
 */
export function renderStack(stack: string, sourceLink: SourceLink | undefined): string {
  const lines = stack.split('\n').map((line) => {
    const frame = sourceLink ? parseFrameLocation(line) : undefined;
    const href = frame && sourceLink ? sourceLink(frame.file, frame.line) : undefined;
    if (!frame || href === undefined) return escapeHtml(line);
    return `${escapeHtml(line.slice(0, frame.start))}<a href="${escapeHtml(href)}">${escapeHtml(line.slice(frame.start, frame.end))}</a>${escapeHtml(line.slice(frame.end))}`;
  });
  return `<pre class="stack">${lines.join('\n')}</pre>`;
}

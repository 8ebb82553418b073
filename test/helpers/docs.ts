/**
 * The project's documents as the tests read them: README.md, SECURITY.md and the pages of docs/,
 * with their headings, anchors, links and fenced code blocks; and which shell blocks of theirs a
 * test runs, or why none does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './checkout.js';

/** The entry page. */
export const README = 'README.md';
/** The pages of docs/, as paths from the project root. */
export const DOC_PAGES: readonly string[] = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`);
/** Every document a reader of the project follows links through. */
export const DOCUMENTS: readonly string[] = [README, 'SECURITY.md', ...DOC_PAGES];

/** A document's text, by its path from the project root. */
export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/** A fenced code block: its language (`sh`, `js`, or `` for none), its code with the fence's indentation removed. */
export interface CodeBlock {
  file: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  lang: string;
  code: string;
  /** The nearest heading above it, without its `#`s. */
  heading: string;
}

export interface Heading {
  level: number;
  text: string;
  line: number;
}

/** The lines of a document, each with whether it is inside a fenced block (fences included). */
function linesOf(text: string): { text: string; fenced: boolean }[] {
  let open = false;
  return text.split('\n').map((line) => {
    const fence = /^\s*```/.test(line);
    const fenced = open || fence;
    if (fence) open = !open;
    return { text: line, fenced };
  });
}

/** The headings of a document, outside fenced blocks. */
export function headingsOf(file: string): Heading[] {
  return linesOf(readDoc(file)).flatMap((line, i) => {
    const m = line.fenced ? null : /^(#{1,6}) (.+)$/.exec(line.text);
    return m ? [{ level: m[1]!.length, text: m[2]!.trim(), line: i + 1 }] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
export function anchorOf(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a document's headings; a repeated one gets `-1`, `-2`, … as on GitHub. */
export function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of headingsOf(file)) {
    const base = anchorOf(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** `[text](target)` links of a document's text outside code, with the line each stands on. */
export function linksIn(text: string): { target: string; line: number }[] {
  return linesOf(text).flatMap((line, i) => {
    if (line.fenced) return [];
    const prose = line.text.replace(/`[^`]*`/g, '');
    return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ target: m[1]!, line: i + 1 }));
  });
}

/** The fenced code blocks of a document, in order. */
export function codeBlocksOf(file: string): CodeBlock[] {
  const lines = readDoc(file).split('\n');
  const blocks: CodeBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const h = /^#{1,6} (.+)$/.exec(lines[i]!);
    if (h) heading = h[1]!.trim();
    const open = /^(\s*)```(\S*)$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i;
    const code: string[] = [];
    for (i++; i < lines.length && !/^\s*```$/.test(lines[i]!); i++) code.push(lines[i]!.slice(indent));
    blocks.push({ file, line: start + 1, lang: open[2]!, code: code.join('\n') + '\n', heading });
  }
  return blocks;
}

/** The text under a heading (its own line excluded), up to the next heading of its level or above. */
export function sectionOf(file: string, heading: string): string {
  const found = headingsOf(file).filter((h) => h.text === heading);
  if (found.length !== 1) throw new Error(`${file} has ${found.length} headings "${heading}"`);
  const [{ level, line }] = found as [Heading];
  const next = headingsOf(file).find((h) => h.line > line && h.level <= level);
  return readDoc(file).split('\n').slice(line, next ? next.line - 1 : undefined).join('\n');
}

/** The one block of `lang` whose nearest heading is `heading`. */
export function blockUnder(file: string, heading: string, lang: string): CodeBlock {
  const found = codeBlocksOf(file).filter((b) => b.heading === heading && b.lang === lang);
  if (found.length !== 1) throw new Error(`${file} has ${found.length} ${lang} blocks under "${heading}"`);
  return found[0]!;
}

/** A shell block, named by its document and the heading it stands under. */
export interface ShellBlock {
  file: string;
  heading: string;
}

/** The shell blocks a test runs as they stand, and the test that runs each. */
export const RUN_BLOCKS: readonly (ShellBlock & { test: string })[] = [
  { file: README, heading: 'Quick start: a poster from the API', test: 'test/quick-start.test.ts' },
  { file: 'docs/posters-and-api.md', heading: 'Keys and tokens', test: 'test/docs-examples.test.ts' },
  { file: 'docs/operating.md', heading: "The operator's listener", test: 'test/docs-examples.test.ts' },
];

/** The shell blocks no test runs as they stand, and why. */
export const UNRUN_BLOCKS: readonly (ShellBlock & { why: string })[] = [
  {
    file: README,
    heading: 'Run it',
    why: '`npm start` serves until it is stopped and `npm test` is the fast tier itself; test/start.test.ts runs `npm start` on a fresh clone',
  },
  {
    file: 'docs/deployment.md',
    heading: 'HTTPS without a proxy',
    why: 'it listens on ports 443 and 80 with a certificate under /etc; test/tls-signals.test.ts and test/e2e/tls.test.ts start the program with TLS_CERT and TLS_KEY on free ports',
  },
];

/** A comment's citation of a document's section: `(docs/http.md, "Limits")`, one or more headings. */
export interface Citation {
  /** The document as written: `docs/http.md`, `README`. */
  document: string;
  headings: string[];
  /** The line the citation starts on, 1-based. */
  line: number;
}

/** Between the parts of a citation: spaces, or a line break and the next line's comment leader. */
const GAP = String.raw`\s+(?:(?:\*|//|#)\s+)?`;
const QUOTED = String.raw`"[^"\n]+"`;
/**
 * A document, `'s` or `,`, then quoted headings joined by `,`, `and` or `or`: the form the code
 * writes, `(docs/http.md, "Routing and errors" and "Limits")`, and the older `README's "Run it"`.
 */
const CITATION = new RegExp(String.raw`(?<![\w./-])((?:[\w-]+/)*[\w.-]+\.md|README)(?:'s|,)?${GAP}(${QUOTED}(?:,?${GAP}(?:and|or)${GAP}${QUOTED}|,${GAP}${QUOTED})*)`, 'g');

/** The citations of document sections in a file's text, with the line each starts on. */
export function citationsIn(text: string): Citation[] {
  return [...text.matchAll(CITATION)].map((m) => ({
    document: m[1]!,
    headings: [...m[2]!.matchAll(/"([^"\n]+)"/g)].map((h) => h[1]!),
    line: text.slice(0, m.index).split('\n').length,
  }));
}

/** The path from the project root of a cited document: `README` is README.md. */
export function citedPath(document: string): string {
  return document === 'README' ? README : document;
}

// Writing one benchmark's section of RESULTS.md, leaving the other sections as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The heading below which RESULTS.md keeps the earlier rounds. */
const HISTORY = '## History';

/** Replaces the section that starts with `heading` (`## JPEG encoder`) by `text`, or appends it. */
export function writeResultsSection(heading, text) {
  const path = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmark results\n';
  // The heading as a whole line: "## Service against its peers" is also the start of others.
  const start = `\n${current}`.indexOf(`\n${heading}\n`);
  // A new section goes above the earlier rounds' history, with the current figures.
  const history = `\n${current}`.indexOf(`\n${HISTORY}\n`);
  let next;
  if (start < 0 && history < 0) next = `${current.trimEnd()}\n\n${text}`;
  else if (start < 0) next = `${current.slice(0, history)}${text}\n${current.slice(history)}`;
  else {
    const end = current.indexOf('\n## ', start + 1);
    next = current.slice(0, start) + text + (end < 0 ? '' : `\n${current.slice(end + 1)}`);
  }
  writeFileSync(path, `${next.trimEnd()}\n`);
}

/**
 * Prints a benchmark's section and, with `--write` among the arguments, puts it in RESULTS.md:
 * `## heading`, the figures, then `notes` (how to read them, the goals, how to reproduce).
 */
export function report(heading, figures, notes = '') {
  const text = [heading, '', figures.trimEnd(), ...(notes ? ['', notes.trim()] : []), ''].join('\n');
  console.log(text);
  if (process.argv.includes('--write')) writeResultsSection(heading, text);
}

/** A progress line on stderr: rewritten in place on a terminal, one line each elsewhere (logs, CI). */
export function progress(text) {
  process.stderr.write(process.stderr.isTTY ? `\r${text}` : `${text}\n`);
}

// Writing one benchmark's section of RESULTS.md, leaving the other sections as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Replaces the section that starts with `heading` (`## JPEG encoder`) by `text`, or appends it. */
export function writeResultsSection(heading, text) {
  const path = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmark results\n';
  const start = current.indexOf(heading);
  let next;
  if (start < 0) next = `${current.trimEnd()}\n\n${text}`;
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

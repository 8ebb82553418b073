#!/usr/bin/env node
/**
 * `poster`: draw a poster and write it to `<public dir>/posters/<hash>.jpg`.
 *
 *   poster --title T [--subtitle S] [--body B] [--from #hex --to #hex] [--text-color #hex]
 *          [--accent-color #hex] [--spec file.json] [--public-dir DIR] [--quality Q]
 *
 * Options override the members of `--spec`. Prints the written file's path as its last line;
 * with no argument at all, prints its usage on stderr and exits 2.
 * Exit codes: 0 written, 1 unexpected failure (unreadable spec file, a posters directory that
 * cannot be made, I/O), 2 bad input (a spec file that is not a regular file of at most
 * SPEC_MAX_BYTES, or not JSON nested at most SPEC_MAX_DEPTH deep, in one line; each problem of
 * the spec on its own line as `<pointer>: <reason>`).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseBoundedJson } from '../util/bounded-json.js';
import { makeDirectories } from '../util/make-directories.js';
import { runIfMain } from '../util/main-module.js';
import { FileRefused, readRegularFile } from '../util/regular-file.js';
import { writePoster } from '../poster/index.js';
import { validatePosterSpec } from '../render/index.js';

/** The largest --spec file read: the poster API's request body limit (docs/http.md, "Limits"). */
export const SPEC_MAX_BYTES = 64 * 1024;
/** How deep a --spec's arrays and objects may nest: a valid spec needs three levels (a shape in `shapes`). */
export const SPEC_MAX_DEPTH = 32;

const USAGE = `usage: poster --title T [options]

Draws a 1125x2436 JPEG poster and writes it to <public dir>/posters/<hash>.jpg;
prints that path.

  --title T            title (required unless in --spec), 1 to 120 characters
  --subtitle S         subtitle, in the accent colour
  --body B             body text; "\\n" starts a new line
  --from #rrggbb       background gradient start (with --to)
  --to #rrggbb         background gradient end (with --from)
  --text-color #rrggbb
  --accent-color #rrggbb
  --spec FILE          a JSON poster spec of at most ${SPEC_MAX_BYTES / 1024} KiB; the options above
                       override its members
  --public-dir DIR     default: $PUBLIC_DIR, else "public"
  --quality Q          JPEG quality 1..100 (default 85)
  -h, --help           this text

Exit codes: 0 written, 1 failure, 2 bad input (one "<pointer>: <reason>" line per problem).`;

const OPTIONS = {
  title: { type: 'string' },
  subtitle: { type: 'string' },
  body: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'text-color': { type: 'string' },
  'accent-color': { type: 'string' },
  spec: { type: 'string' },
  'public-dir': { type: 'string' },
  quality: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs the CLI; `env` supplies `PUBLIC_DIR` (tests pass their own). Resolves with the exit code. */
export async function runPosterCli(
  argv: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  // Run bare, it would only say the title is missing: the usage says what it wants.
  if (argv.length === 0) {
    err(USAGE);
    return 2;
  }
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (e) {
    err(`poster: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
  }

  let input: Record<string, unknown> = {};
  if (values.spec !== undefined) {
    const spec = readSpec(values.spec);
    if (!spec.ok) {
      err(spec.line);
      return spec.code;
    }
    input = spec.members;
  }
  input = mergeOptions(input, values);

  const checked = validatePosterSpec(input);
  if (!checked.ok) {
    for (const { pointer, reason } of checked.errors) err(`${pointer || '/'}: ${reason}`);
    return 2;
  }
  const publicDir = values['public-dir'] ?? (env.PUBLIC_DIR || 'public');
  const postersDir = join(publicDir, 'posters');
  // Made here, before drawing, one component at a time: the recursive mkdir that writePoster
  // does next then finds it there (it would never end on a path like /proc/self/posters).
  try {
    await makeDirectories(postersDir);
  } catch (e) {
    err(`poster: cannot create ${postersDir}: ${(e as Error).message}`);
    return 1;
  }
  out(await writePoster(checked.value, publicDir));
  return 0;
}

type SpecFile = { ok: true; members: Record<string, unknown> } | { ok: false; line: string; code: 1 | 2 };

/** The members of the --spec file's JSON object, or the one line that says why there are none, with the exit code. */
function readSpec(path: string): SpecFile {
  let text: string;
  try {
    text = readRegularFile(path, SPEC_MAX_BYTES).bytes.toString('utf8');
  } catch (e) {
    if (e instanceof FileRefused) return { ok: false, line: `poster: --spec ${e.message}`, code: 2 };
    return { ok: false, line: `poster: cannot read --spec ${path}: ${(e as Error).message}`, code: 1 };
  }
  const parsed = parseBoundedJson(text, SPEC_MAX_DEPTH);
  if (!parsed.ok) return { ok: false, line: `poster: --spec ${path} is not valid JSON: ${parsed.problem}`, code: 2 };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, line: `poster: --spec ${path} must hold a JSON object`, code: 2 };
  return { ok: true, members: value as Record<string, unknown> };
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true });
}

/** The spec file's members with the command-line options laid over them. */
function mergeOptions(spec: Record<string, unknown>, values: ReturnType<typeof parse>['values']): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...spec };
  if (values.title !== undefined) merged.title = values.title;
  if (values.subtitle !== undefined) merged.subtitle = values.subtitle;
  // A shell makes typing a line break awkward: the two characters \n stand for one.
  if (values.body !== undefined) merged.body = values.body.replace(/\\n/g, '\n');
  if (values['text-color'] !== undefined) merged.textColor = values['text-color'];
  if (values['accent-color'] !== undefined) merged.accentColor = values['accent-color'];
  if (values.from !== undefined || values.to !== undefined) {
    const background = typeof spec.background === 'object' && spec.background !== null ? spec.background : {};
    merged.background = {
      ...background,
      ...(values.from !== undefined ? { from: values.from } : {}),
      ...(values.to !== undefined ? { to: values.to } : {}),
    };
  }
  if (values.quality !== undefined) {
    // A number when it reads as one, so the spec's rules (integer, 1..100) speak about it.
    const q = values.quality.trim();
    merged.quality = q !== '' && Number.isFinite(Number(q)) ? Number(q) : values.quality;
  }
  return merged;
}

runIfMain(import.meta.url, 'poster', runPosterCli);

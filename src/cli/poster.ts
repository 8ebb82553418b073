#!/usr/bin/env node
/**
 * `poster`: draw a poster and write it to `<public dir>/posters/<hash>.jpg`.
 *
 *   poster --title T [--subtitle S] [--body B] [--from #hex --to #hex] [--text-color #hex]
 *          [--accent-color #hex] [--spec file.json] [--public-dir DIR] [--quality Q]
 *
 * Options override the members of `--spec`. Prints the written file's path as its last line.
 * Exit codes: 0 written, 1 unexpected failure (unreadable spec file, I/O), 2 bad input (each
 * problem on its own line as `<pointer>: <reason>`).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runIfMain } from '../util/main-module.js';
import { writePoster } from '../poster/index.js';
import { validatePosterSpec } from '../render/index.js';

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
  --spec FILE          a JSON poster spec; the options above override its members
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
    let text: string;
    try {
      text = await readFile(values.spec, 'utf8');
    } catch (e) {
      err(`poster: cannot read --spec ${values.spec}: ${(e as Error).message}`);
      return 1;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        err(`poster: --spec ${values.spec} must hold a JSON object`);
        return 2;
      }
      input = parsed as Record<string, unknown>;
    } catch (e) {
      err(`poster: --spec ${values.spec} is not valid JSON: ${(e as Error).message}`);
      return 2;
    }
  }
  input = mergeOptions(input, values);

  const checked = validatePosterSpec(input);
  if (!checked.ok) {
    for (const { pointer, reason } of checked.errors) err(`${pointer || '/'}: ${reason}`);
    return 2;
  }
  const publicDir = values['public-dir'] ?? (env.PUBLIC_DIR || 'public');
  out(await writePoster(checked.value, publicDir));
  return 0;
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

/**
 * `.env` files, loaded like Symfony's Dotenv: `.env`, `.env.local` (skipped when APP_ENV=test),
 * `.env.<APP_ENV>`, `.env.<APP_ENV>.local`; later files win, real environment variables win
 * over every file. Each file is also scanned line by line, so that the start-up warnings can
 * name a line that sets nothing (setting-warnings.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './config-error.js';
import { errorCode } from '../util/errno.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** A variable an env file sets, on the (1-based) line where its entry starts. */
export interface EnvFileEntry {
  readonly name: string;
  readonly line: number;
}

/** What a scan of an env file finds: the names it sets, and the lines that are not `NAME=value`. */
export interface EnvFileLines {
  readonly entries: readonly EnvFileEntry[];
  readonly notSettings: readonly number[];
}

/** One env file that exists, as read: its name in the directory, its variables and its lines. */
export interface EnvFile extends EnvFileLines {
  readonly name: string;
  readonly vars: Readonly<Record<string, string>>;
}

/**
 * Reads the env files in `dir` under the real environment `env` and returns the merged
 * variables (real environment last, so it wins).
 */
export function readEnvFiles(dir: string, env: Env): Record<string, string | undefined> {
  return Object.assign({}, ...openEnvFiles(dir, env).map((file) => file.vars), env) as Record<string, string | undefined>;
}

/** The env files of `dir` that exist and are loaded under `env`, in the order they are layered. */
export function openEnvFiles(dir: string, env: Env): EnvFile[] {
  const open = (name: string): EnvFile | undefined => {
    const path = join(dir, name);
    if (!existsSync(path)) return undefined;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(name, `cannot be read (${errorCode(err) ?? 'error'})`);
    }
    return { name, vars: parseEnv(text) as Record<string, string>, ...scanEnvLines(text) };
  };
  const base = open('.env');
  const appEnvSoFar = env.APP_ENV ?? base?.vars.APP_ENV ?? 'dev';
  const local = appEnvSoFar === 'test' ? undefined : open('.env.local');
  const appEnv = env.APP_ENV ?? local?.vars.APP_ENV ?? base?.vars.APP_ENV ?? 'dev';
  return [base, local, open(`.env.${appEnv}`), open(`.env.${appEnv}.local`)].filter((file) => file !== undefined);
}

/** A variable's name: what a shell could export. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The entries of an env file's text as node:util's parseEnv reads them (blank lines and `#`
 * comments skipped, an optional `export `, a value in quotes that may span lines), each with
 * its line, and the lines that set no variable: no `=` (`PORT 8000`), or no name before it
 * (`=8000`, `MY PORT=8000`, a byte-order mark before the first name: parseEnv keeps it in the
 * name).
 */
export function scanEnvLines(text: string): EnvFileLines {
  const lines = text.split('\n');
  const entries: EnvFileEntry[] = [];
  const notSettings: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = trimBlanks(lines[i]!);
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    const key = equals === -1 ? '' : trimBlanks(line.slice(0, equals));
    const name = key.startsWith('export ') ? trimBlanks(key.slice('export '.length)) : key;
    if (NAME.test(name)) entries.push({ name, line: i + 1 });
    else notSettings.push(i + 1);
    if (equals !== -1) i = lastLineOfValue(lines, i, trimBlanks(line.slice(equals + 1)));
  }
  return { entries, notSettings };
}

/**
 * `text` without the spaces, tabs and carriage returns around it: what parseEnv trims. Not
 * String.prototype.trim, which also drops a byte-order mark or a no-break space that parseEnv
 * keeps in the name (so the setting it was meant to be is never set).
 */
function trimBlanks(text: string): string {
  const blank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r';
  let start = 0;
  let end = text.length;
  while (start < end && blank(text[start])) start++;
  while (end > start && blank(text[end - 1])) end--;
  return text.slice(start, end);
}

/**
 * The index of the line where the value starting on line `first` ends: a value opened by a
 * quote ends on the line of the same quote's next appearance, when there is one (`K="a` on one
 * line, `b"` on the next).
 */
function lastLineOfValue(lines: readonly string[], first: number, value: string): number {
  const quote = value[0];
  if (quote !== '"' && quote !== "'" && quote !== '`') return first;
  if (value.indexOf(quote, 1) !== -1) return first;
  for (let i = first + 1; i < lines.length; i++) {
    if (lines[i]!.includes(quote)) return i;
  }
  return first;
}

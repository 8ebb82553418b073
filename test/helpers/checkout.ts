/**
 * A fresh checkout in a temp directory, as `git clone` and `npm ci` leave one: the project's
 * files without dist/, and the installed modules (linked to this checkout's); or, for a test
 * that runs `npm ci` itself, as `git clone` alone leaves one.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after } from 'node:test';

/** The project root: the directory the tests run from. */
export const ROOT = resolve('.');

/**
 * What a clone holds that building, starting, packing and the documents' commands read (tests and
 * benchmarks aside): `public/` as git keeps it, its one file, without posters made here.
 */
const CLONED = [
  'package.json', 'package-lock.json', '.npmrc', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'bin', 'assets', 'public/.gitkeep',
  'README.md', 'docs', 'LICENSE', 'SECURITY.md',
];

/**
 * A fresh checkout, removed after the test file. `installed: false` leaves out node_modules, for
 * a test that runs `npm ci` in it: never a link to this checkout's, which `npm ci` would replace.
 */
export function freshCheckout(options: { installed?: boolean } = {}): string {
  const checkout = mkdtempSync(join(tmpdir(), 'fresh-checkout-'));
  after(() => rmSync(checkout, { recursive: true, force: true }));
  for (const entry of CLONED) cpSync(join(ROOT, entry), join(checkout, entry), { recursive: true });
  if (options.installed !== false) symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  return checkout;
}

/** Every file under `dir`, as paths relative to it with `/` separators, sorted. */
export function filesUnder(dir: string): string[] {
  const walk = (path: string): string[] =>
    statSync(path).isDirectory() ? readdirSync(path).flatMap((entry) => walk(join(path, entry))) : [relative(dir, path).split('\\').join('/')];
  return walk(dir).sort();
}

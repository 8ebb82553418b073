/**
 * A fresh checkout in a temp directory, as `git clone` and `npm ci` leave one: the project's
 * files without dist/, and the installed modules (linked to this checkout's).
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after } from 'node:test';

/** The project root: the directory the tests run from. */
export const ROOT = resolve('.');

/** What a clone holds that building, starting and packing read (tests and benchmarks aside). */
const CLONED = ['package.json', 'package-lock.json', '.npmrc', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'bin', 'assets', 'README.md', 'LICENSE', 'SECURITY.md'];

/** A fresh checkout, removed after the test file. */
export function freshCheckout(): string {
  const checkout = mkdtempSync(join(tmpdir(), 'fresh-checkout-'));
  after(() => rmSync(checkout, { recursive: true, force: true }));
  for (const entry of CLONED) cpSync(join(ROOT, entry), join(checkout, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  return checkout;
}

/** Every file under `dir`, as paths relative to it with `/` separators, sorted. */
export function filesUnder(dir: string): string[] {
  const walk = (path: string): string[] =>
    statSync(path).isDirectory() ? readdirSync(path).flatMap((entry) => walk(join(path, entry))) : [relative(dir, path).split('\\').join('/')];
  return walk(dir).sort();
}

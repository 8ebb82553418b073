#!/usr/bin/env node
// Builds dist/ with `tsc` when it is missing or older than what it is built from: src/ and the
// TypeScript settings (in a checkout; an installed package has no src/ and ships dist/).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What the build reads: anything newer here than the newest file in dist/ makes dist/ stale. */
const BUILD_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time of a file, or of any file under a directory (0 if missing). */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Whether `dir`'s dist/ has no server.js, or is older than what it is built from. */
export function isStale(dir) {
  const dist = join(dir, 'dist');
  if (!existsSync(join(dist, 'server.js'))) return true;
  return Math.max(...BUILD_INPUTS.map((input) => newestMtime(join(dir, input)))) > newestMtime(dist);
}

export function buildIfNeeded() {
  // An installed package ships dist/ and no src/: nothing to build.
  if (!existsSync(join(root, 'src')) || !isStale(root)) return;
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildIfNeeded();

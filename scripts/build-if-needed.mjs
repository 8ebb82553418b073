#!/usr/bin/env node
// Builds dist/ (the project's TypeScript, then the bundle step) when it is missing or older than
// src/ (in a checkout; an installed package has no src/ and ships dist/).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export function buildIfNeeded() {
  const dist = join(root, 'dist');
  // An installed package ships dist/ and no src/: nothing to build.
  if (!existsSync(join(root, 'src'))) return;
  const stale = !existsSync(join(dist, 'server.js')) || newestMtime(join(root, 'src')) > newestMtime(dist);
  if (!stale) return;
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const step of [[tsc, '-p', join(root, 'tsconfig.build.json')], [join(root, 'scripts', 'bundle.mjs'), dist]]) {
    const result = spawnSync(process.execPath, step, { stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildIfNeeded();

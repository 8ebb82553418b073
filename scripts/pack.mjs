#!/usr/bin/env node
// `npm run pack` (and `prepack`, which npm runs on `npm publish`: see publishConfig): builds
// dist/ afresh with tsc, then packs. A bare `npm pack` runs no script here (.npmrc sets
// ignore-scripts, and npm has no hook it runs regardless), so it would ship whatever dist/
// holds, nothing on a fresh clone; this script is the way to pack.
//   node scripts/pack.mjs          build, `npm pack`, check the tarball's contents
//   node scripts/pack.mjs --build  build only (the prepack step)
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What an installed package needs to work: the library, the service, both commands. */
const REQUIRED = ['dist/index.js', 'dist/index.d.ts', 'dist/server.js', 'dist/cli/jwt.js', 'dist/cli/poster.js', 'bin/jwt.mjs', 'bin/poster.mjs', 'bin/problem-service.mjs', 'assets/fonts/DejaVuSans.ttf'];

function fail(message) {
  console.error(`pack: ${message}`);
  process.exit(1);
}

/** dist/ from nothing: files tsc emitted for sources since deleted must not ship. */
function buildAfresh() {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) fail('the build failed: nothing was packed');
}

buildAfresh();
if (!process.argv.includes('--build')) {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', ...process.argv.slice(2)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const files = new Set(packed.files.map((file) => file.path));
  const missing = REQUIRED.filter((file) => !files.has(file));
  if (missing.length > 0) {
    rmSync(join(root, packed.filename), { force: true });
    fail(`the tarball would lack ${missing.join(', ')}: nothing was packed`);
  }
  console.log(`${packed.filename}: ${files.size} files, built from src/ by tsc`);
}

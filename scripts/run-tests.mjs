#!/usr/bin/env node
// Runs one tier of the test suite with node:test through tsx.
//   unit:    the fast tier (`npm test`): test/**/*.test.ts that run in the test's own process,
//            outside test/e2e/ and the two tiers below (needs only Node); its files share one
//            process per core, so they may keep no state between them (the code has none)
//   process: tests that start programs: npm scripts, packaging, the CLIs, the cluster, the deploy
//            files, cold starts, the server program under signals (`npm run test:process`)
//   sockets: raw-socket tests of a whole server (framing, connections, pipelining, client errors),
//            the ones .ci/run also runs against the build with SERVICE_TARGET=dist
//   e2e:     test/e2e/**/*.test.ts (drives real outside programs; see scripts/install-test-tools)
//   fuzz:    test/fuzz/**/*.fuzz.ts (seeded raw requests against the real program; FUZZ_* settings)
// The files are listed here, tier by tier, rather than left to --test's own search.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const PROCESS_TESTS = [
  'test/cli/jwt.test.ts', 'test/cli/poster.test.ts', 'test/cluster.test.ts', 'test/cold-start.test.ts',
  'test/deploy.test.ts', 'test/docs-examples.test.ts', 'test/log/durability.test.ts', 'test/profiler/cluster.test.ts', 'test/quick-start.test.ts',
  'test/scripts/scripts.test.ts', 'test/scripts/pack.test.ts', 'test/scripts/service-target.test.ts', 'test/server-stop-under-load.test.ts', 'test/start.test.ts',
  'test/tls-signals.test.ts',
  'test/static/first-import.test.ts',
];
const SOCKET_TESTS = [
  'test/server.test.ts', 'test/http/server-framing.test.ts', 'test/http/server-connections.test.ts', 'test/http/server-client-errors.test.ts',
  'test/http/server-pipelining.test.ts', 'test/http/server-h2-abuse.test.ts', 'test/ops/admin-listener-timeouts.test.ts', 'test/static/fairness.test.ts', 'test/static/framing.test.ts',
];
const TIERS = ['unit', 'process', 'sockets', 'e2e', 'fuzz'];
// Far above any tier's time (the e2e tier, the longest, takes about 6 minutes on two cores): a
// program left waiting by a failed test ends the run with a failure, not a hung one.
const TIER_LIMIT_MS = 30 * 60_000;

const tier = process.argv[2];
if (!TIERS.includes(tier)) {
  console.error(`usage: run-tests.mjs ${TIERS.join('|')} [name-filter]`);
  process.exit(2);
}
const filter = process.argv[3] ?? '';

function listTests(dir, suffix) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTests(path, suffix);
    return entry.name.endsWith(suffix) ? [relative('.', path)] : [];
  });
}
const native = (paths) => paths.map((p) => join(...p.split('/')));
const listed = new Set(native([...PROCESS_TESTS, ...SOCKET_TESTS]));

function filesOf(name) {
  if (name === 'process') return native(PROCESS_TESTS);
  if (name === 'sockets') return native(SOCKET_TESTS);
  if (name === 'fuzz') return listTests(join('test', 'fuzz'), '.fuzz.ts');
  if (name === 'e2e') return listTests(join('test', 'e2e'), '.test.ts');
  return listTests('test', '.test.ts').filter((p) => !p.startsWith(join('test', 'e2e')) && !listed.has(p));
}

const files = filesOf(tier).sort().filter((p) => p.includes(filter));
if (files.length === 0) {
  console.error(`no ${tier} test files found`);
  process.exit(1);
}
if (tier === 'unit') {
  // An exit code, not process.exit: the shards' reports may still be on their way down a pipe.
  process.exitCode = await runInShards(files, Math.max(2, availableParallelism()));
} else {
  // Process files two at a time at least: Node's default (one less than the cores) runs them
  // one by one on two cores, though most of a file's time is spent waiting on child programs.
  // The other tiers run one file at a time: they take real ports and outside programs, and
  // measure promptness.
  const concurrency = tier === 'process' ? Math.max(2, availableParallelism()) : 1;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
    stdio: 'inherit',
    timeout: TIER_LIMIT_MS,
  });
  if (result.error?.code === 'ETIMEDOUT') console.error(`the ${tier} tier did not end within ${TIER_LIMIT_MS / 60_000} minutes: stopped`);
  process.exitCode = result.status ?? 1;
}

/**
 * The fast tier: its files dealt into `count` shards, each run in one process (no process per
 * file: starting Node and its TypeScript loader for each file was most of the tier's CPU time),
 * the shards side by side. Each shard's report is printed whole when it ends, so reports do not
 * interleave. Resolves to the exit status: 0 when every shard passed.
 */
async function runInShards(paths, count) {
  const shards = Array.from({ length: Math.min(count, paths.length) }, (_, i) => paths.filter((_, j) => j % count === i));
  const counts = { tests: 0, pass: 0, fail: 0 };
  const statuses = await Promise.all(shards.map((shard) => new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--experimental-test-isolation=none', '--test-reporter=spec', ...shard], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      const report = Buffer.concat(output).toString('utf8');
      process.stdout.write(report);
      for (const key of Object.keys(counts)) counts[key] += Number(new RegExp(`^ℹ ${key} (\\d+)$`, 'm').exec(report)?.[1] ?? 0);
      resolve(code ?? (signal ? 1 : 0));
    });
  })));
  console.log(`\n${counts.tests} tests in ${shards.length} ${shards.length === 1 ? 'process' : 'processes'}: ${counts.pass} passed, ${counts.fail} failed`);
  return statuses.find((status) => status !== 0) ?? 0;
}

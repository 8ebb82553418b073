#!/usr/bin/env node
// Runs one tier of the test suite with node:test through tsx.
//   unit: test/**/*.test.ts outside test/e2e/ (needs only Node)
//   e2e:  test/e2e/**/*.test.ts (drives real outside programs; see scripts/install-test-tools)
//   fuzz: test/fuzz/**/*.fuzz.ts (seeded raw requests against the real program; FUZZ_* settings)
//   sockets: the raw-socket server tests (unit-tier files), the ones .ci/run also runs against
//            the build with SERVICE_TARGET=dist
// Node 20's --test takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

/** The tests that talk to a whole server over raw sockets (framing, connections, client errors). */
const RAW_SOCKET_TESTS = ['test/server.test.ts', 'test/server-framing.test.ts', 'test/server-connections.test.ts', 'test/server-client-errors.test.ts', 'test/server-pipelining.test.ts', 'test/static-framing.test.ts'];

const tier = process.argv[2];
if (tier !== 'unit' && tier !== 'e2e' && tier !== 'fuzz' && tier !== 'sockets') {
  console.error('usage: run-tests.mjs unit|e2e|fuzz|sockets [name-filter]');
  process.exit(2);
}
const filter = process.argv[3] ?? '';

function listTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTests(path);
    return entry.name.endsWith(tier === 'fuzz' ? '.fuzz.ts' : '.test.ts') ? [path] : [];
  });
}

const all = tier === 'sockets' ? RAW_SOCKET_TESTS.map((p) => join(...p.split('/'))) : listTests('test').map((p) => relative('.', p)).sort();
const inTier = (p) => (tier === 'fuzz' ? p.startsWith(join('test', 'fuzz')) : (tier === 'e2e') === p.startsWith(join('test', 'e2e')));
const files = all.filter((p) => inTier(p) && p.includes(filter));
if (files.length === 0) {
  console.error(`no ${tier} test files found`);
  process.exit(1);
}
// Unit files at once: Node's default (one less than the cores) runs them one by one on two
// cores, though most of a file's time is spent waiting on servers, timers and child programs.
// The other tiers run one file at a time: they take real ports and outside programs.
const concurrency = tier === 'unit' ? Math.max(2, availableParallelism()) : 1;
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);

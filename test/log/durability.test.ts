import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { send, type RawResponse } from '../helpers/http.js';
import { readAccessLog, readErrorLog } from '../helpers/log-files.js';
import { runServerProgram } from '../helpers/service.js';

const readLog = (varDir: string) => readErrorLog(join(varDir, 'log'));
const accessTargets = (varDir: string) => readAccessLog(join(varDir, 'log')).map((entry) => entry.target);

describe('log durability of the server program', () => {
  it('has a line for every answered error when SIGTERM comes during a flood, and exits 0', async () => {
    const run = runServerProgram({});
    const url = await run.listening;
    const answered: string[] = [];
    let stopped = false;
    const client = async (id: number) => {
      for (let i = 0; !stopped || i < 5; i++) {
        const path = `/flood/${id}/${i}`;
        let res: RawResponse;
        try {
          res = await send(url, 'GET', path, { accept: 'application/json' });
        } catch {
          return; // refused or reset once the server stopped: not answered
        }
        if (res.status === 404) answered.push(path);
        if (i > 2_000) return;
      }
    };
    const clients = Array.from({ length: 8 }, (_, id) => client(id));
    // Stop once the flood is under way, counted in answers rather than time: on a busy machine
    // a fixed delay may pass before the first answer.
    for (let waited = 0; answered.length < 60 && waited < 30_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
    run.child.kill('SIGTERM');
    stopped = true;
    await Promise.all(clients);
    const [code] = await run.exited;
    assert.equal(code, 0);
    assert.ok(answered.length > 50, `only ${answered.length} requests answered before the stop`);
    const log = readLog(run.varDir);
    const missing = answered.filter((path) => !log.includes(`request.ERROR: No route found for "GET ${path}"\n`));
    assert.deepEqual(missing, [], `${missing.length} of ${answered.length} answered errors have no log line`);
    const targets = new Set(accessTargets(run.varDir));
    const unlogged = answered.filter((path) => !targets.has(path));
    assert.deepEqual(unlogged, [], `${unlogged.length} of ${answered.length} answered requests have no access line`);
  });

  it('writes the uncaught exception and earlier lines, then exits 1', async () => {
    const run = runServerProgram({}, ['--import', './test/fixtures/throw-on-signal.mjs']);
    const url = await run.listening;
    await send(url, 'GET', '/before-the-crash');
    run.child.kill('SIGUSR2');
    const [code] = await run.exited;
    assert.equal(code, 1);
    const log = readLog(run.varDir);
    assert.match(log, /request\.ERROR: No route found for "GET \/before-the-crash"\n/);
    assert.match(log, /app\.CRITICAL: Uncaught Error: "unexpected failure for the test" Error: unexpected failure for the test\\n {4}at /);
    assert.equal(log.split('\n').filter((l) => l !== '').length, 2);
    assert.deepEqual(accessTargets(run.varDir), ['/before-the-crash'], 'the access line is flushed at the crash too');
  });

  it('keeps answering with an unwritable LOG_DIR and says so once on stderr for each log', async () => {
    const run = runServerProgram({ LOG_DIR: '/proc/version/log' });
    const url = await run.listening;
    for (let i = 0; i < 3; i++) assert.equal((await send(url, 'GET', `/x${i}`)).status, 404);
    await new Promise((r) => setTimeout(r, 100));
    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    assert.equal(code, 0);
    const stderr = run.output().stderr;
    for (const log of ['log', 'access log']) {
      const warnings = stderr.split('\n').filter((l) => l.startsWith(`${log}: cannot write`));
      assert.equal(warnings.length, 1, stderr);
      assert.match(warnings[0]!, /cannot write to \/proc\/version\/log \(ENOTDIR\)/);
      assert.match(stderr, new RegExp(`(^|\\n)${log}: 3 lines not written at exit \\(ENOTDIR\\)\\n`));
    }
  });
});

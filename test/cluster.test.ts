import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { send } from './helpers/http.js';
import { readAccessLog, readErrorLog } from './helpers/log-files.js';
import { runServerProgram } from './helpers/service.js';
import { eventually } from './helpers/eventually.js';
import { childPids } from './helpers/processes.js';

/** Waits for `condition`, failing the test after 10,000 ms with `what`. */
const until = (condition: () => boolean | Promise<boolean>, what: string) => eventually(what, condition, Boolean, 10_000);

describe('WORKERS=2', () => {
  it('serves from two workers, replaces one that dies, logs whole lines from all, and stops gracefully', async () => {
    const run = runServerProgram({ WORKERS: '2' });
    const url = await run.listening;
    const primary = run.child.pid!;
    await until(() => childPids(primary).length === 2, 'two workers');
    const [first] = childPids(primary);

    const paths = Array.from({ length: 200 }, (_, i) => `/cluster/${i}`);
    await Promise.all(paths.map((p) => send(url, 'GET', p)));

    // Lines reach the file within 100 ms; a SIGKILL (which nothing can catch) comes later.
    await new Promise((r) => setTimeout(r, 200));
    process.kill(first!, 'SIGKILL');
    await until(() => childPids(primary).length === 2 && !childPids(primary).includes(first!), 'a replacement worker');
    assert.equal((await send(url, 'GET', '/')).status, 200);

    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    assert.equal(code, 0);
    assert.equal(run.output().stdout.match(/listening on/g)?.length, 1, 'one listening line');

    const dir = join(run.varDir, 'log');
    const lines = readErrorLog(dir).split('\n').filter((l) => l !== '');
    for (const p of paths) {
      assert.equal(lines.filter((l) => l.endsWith(`request.ERROR: No route found for "GET ${p}"`)).length, 1, p);
    }
    assert.ok(lines.some((l) => l.includes(`app.ERROR: Worker ${first} exited (SIGKILL); starting another`)), 'the death is logged');
    assert.ok(lines.every((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [a-z]+\.[A-Z]+: /.test(l)), 'a torn line');
    // Every answer has its access line, whole, naming the worker that answered.
    const entries = readAccessLog(dir);
    for (const p of paths) assert.equal(entries.filter((e) => e.target === p).length, 1, p);
    assert.ok(entries.every((e) => typeof e.worker === 'number' && e.worker >= 1), 'an access line without its worker');
  });
});

describe('WORKERS=auto', () => {
  it('runs one worker per available core, without a warning', async () => {
    const cores = availableParallelism();
    const run = runServerProgram({ WORKERS: 'auto' });
    const url = await run.listening;
    // One core: auto is one process serving on its own, no cluster and no worker to fork.
    const expected = cores > 1 ? cores : 0;
    await until(() => childPids(run.child.pid!).length === expected, `${expected} workers`);
    assert.equal((await send(url, 'GET', '/')).status, 200);
    run.child.kill('SIGTERM');
    assert.equal((await run.exited)[0], 0);
    assert.equal(run.output().stderr, '');
  });
});

describe('WORKERS above the cores', () => {
  it('warns once on stderr, then runs and serves as asked', async () => {
    const cores = availableParallelism();
    const workers = cores + 1;
    const run = runServerProgram({ WORKERS: String(workers) });
    const url = await run.listening;
    await until(() => childPids(run.child.pid!).length === workers, `${workers} workers`);
    assert.equal((await send(url, 'GET', '/')).status, 200);
    run.child.kill('SIGTERM');
    assert.equal((await run.exited)[0], 0);
    assert.equal(
      run.output().stderr,
      `warning: WORKERS=${workers} is more than the ${cores} core${cores === 1 ? '' : 's'} this process may run on; WORKERS=auto runs one per core\n`,
    );
    assert.equal(run.output().stdout, `listening on ${url}\n`);
  });
});

describe('WORKERS=2 that cannot start', () => {
  it('exits 1 with the workers\' reason when the port is taken, instead of forking again for ever', { timeout: 30_000 }, async () => {
    const holder = runServerProgram({});
    const taken = await holder.listening;
    const run = runServerProgram({ WORKERS: '2', PORT: new URL(taken).port });
    const [code] = await run.exited;
    holder.child.kill('SIGTERM');
    await holder.exited;
    assert.equal(code, 1);
    assert.match(run.output().stderr, /^cannot start: .*EADDRINUSE/m);
    assert.equal(run.output().stdout, '', 'never said it listens');
    assert.match(readErrorLog(join(run.varDir, 'log')), /app\.CRITICAL: Worker \d+ exited \(code 1\) before the service listened; stopping/);
  });
});

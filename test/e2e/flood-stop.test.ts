/**
 * SIGTERM to the real server program while curl floods it with 404s over keep-alive
 * connections (8 in parallel): the program exits 0, every request curl got an answer to was
 * answered completely, and every answered error has its line in the log file, whole. The
 * in-process client of test/log/durability.test.ts opens one connection per request; curl
 * reuses its connections, so the stop also has to close idle keep-alive sockets without
 * cutting an answer short. Needs curl; fails, never skips, without it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readAccessLog, readErrorLog } from '../helpers/log-files.js';
import { runServerProgram } from '../helpers/service.js';

const REQUESTS = 20_000;
/** Answers curl has reported when SIGTERM is sent. */
const ANSWERED_BEFORE_STOP = 1_000;
const LOG_LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [a-z]+\.[A-Z]+: /;

const readLog = (varDir: string) => readErrorLog(join(varDir, 'log'));

describe('SIGTERM during a 404 flood from curl', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flood-stop-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 with a whole log line for every answered request', async (t) => {
    const run = runServerProgram({});
    t.after(async () => {
      if (run.child.exitCode !== null || run.child.signalCode !== null) return;
      run.child.kill('SIGKILL');
      await run.exited;
    });
    const url = await run.listening;
    // One `url`/`output` pair per transfer: curl's config file format.
    const config = Array.from({ length: REQUESTS }, (_, i) => `url = "${url}/flood/${i}"\noutput = "/dev/null"\n`).join('');
    writeFileSync(join(dir, 'urls.curlrc'), config);

    const curl = spawn('curl', [
      '--silent', '--parallel', '--parallel-max', '8', '--config', join(dir, 'urls.curlrc'),
      '--write-out', '%{http_code} %{exitcode} %{url_effective}\\n',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    curl.stdout.on('data', (c: Buffer) => (out += c));
    const curlExited = once(curl, 'close');
    curl.on('error', () => {}); // reported by the awaited spawn below
    await once(curl, 'spawn').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new Error('curl is not installed: run scripts/install-test-tools') : err;
    });
    t.after(() => {
      if (curl.exitCode === null && curl.signalCode === null) curl.kill('SIGKILL');
    });

    // Stop once the flood is well under way.
    const deadline = Date.now() + 10_000;
    while (out.split('\n').length < ANSWERED_BEFORE_STOP) {
      assert.ok(Date.now() < deadline, `the flood did not start: ${out.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    run.child.kill('SIGTERM');
    const [code, signal] = await run.exited;
    assert.deepEqual([code, signal], [0, null], run.output().stderr);
    await curlExited;

    const results = out.split('\n').filter((l) => l !== '').map((l) => {
      const [status, exitCode, target] = l.split(' ');
      return { status: Number(status), exitCode: Number(exitCode), path: new URL(target!).pathname };
    });
    assert.equal(results.length, REQUESTS, 'curl reported every transfer');
    // Not answered at all (refused, or closed before a status line) is fine once stopping;
    // a status line followed by a transfer error is an answer cut short.
    const answered = results.filter((r) => r.status !== 0);
    const unexpected = answered.filter((r) => r.status !== 404 || r.exitCode !== 0);
    assert.deepEqual(unexpected, [], 'answers other than a complete 404');
    assert.ok(answered.length >= ANSWERED_BEFORE_STOP, `only ${answered.length} answered`);
    assert.ok(answered.length < REQUESTS, 'the flood ended before the stop: nothing was tested');

    const log = readLog(run.varDir);
    assert.ok(log.endsWith('\n'), 'the log ends in a partial line');
    const torn = log.split('\n').filter((l) => l !== '' && !LOG_LINE.test(l));
    assert.deepEqual(torn, [], 'log lines not in the line format');
    const logged = new Set(log.split('\n').map((l) => /request\.ERROR: No route found for "GET (\/flood\/\d+)"$/.exec(l)?.[1]));
    const missing = answered.filter((r) => !logged.has(r.path)).map((r) => r.path);
    assert.deepEqual(missing, [], `${missing.length} of ${answered.length} answered requests have no log line`);
    const accessed = new Set(readAccessLog(join(run.varDir, 'log')).map((entry) => entry.target));
    const unlogged = answered.filter((r) => !accessed.has(r.path)).map((r) => r.path);
    assert.deepEqual(unlogged, [], `${unlogged.length} of ${answered.length} answered requests have no access line`);
  });
});

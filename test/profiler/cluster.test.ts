import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { send, type RawResponse } from '../helpers/http.js';
import { runServerProgram } from '../helpers/service.js';
import { eventually } from '../helpers/eventually.js';
import { childPids } from '../helpers/processes.js';

/** Bytes a process has written so far (files, sockets, its channel to the primary). */
function bytesWritten(pid: number): number {
  return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/** Waits for `condition`, failing the test after 15,000 ms with `what`. */
const until = (condition: () => boolean | Promise<boolean>, what: string) => eventually(what, condition, Boolean, 15_000);

/** A port nobody listens on now. With PORT=0 each worker would listen on a port of its own. */
async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Which workers wrote anything while `work` ran: an idle worker writes nothing. */
async function workersBusyDuring(workers: readonly number[], work: () => Promise<void>): Promise<number> {
  const before = workers.map(bytesWritten);
  await work();
  return workers.filter((pid, i) => bytesWritten(pid) > before[i]!).length;
}

describe('dev profiler with WORKERS=2', () => {
  it('answers every debug token link and /_profiler/latest, whichever worker made the profile and whichever gets the link', { timeout: 60_000 }, async () => {
    const run = runServerProgram({ WORKERS: '2', APP_ENV: 'dev', APP_DEBUG: '1', PORT: String(await unusedPort()) });
    after(() => {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    });
    const url = await run.listening;
    const primary = run.child.pid!;
    await until(() => childPids(primary).length === 2, 'two workers');
    const workers = childPids(primary);
    // The `listening` line comes from the first worker: wait until both have started (an idle
    // worker writes nothing) and connections reach both.
    await until(async () => (await workersBusyDuring(workers, () => new Promise((r) => setTimeout(r, 300)))) === 0, 'quiet workers');
    await until(async () => (await workersBusyDuring(workers, async () => {
      for (let i = 0; i < 4; i++) await send(url, 'GET', `/warm-up/${i}`);
    })) === 2, 'both workers answering');

    const links: { path: string; token: string; previous: string; link: string }[] = [];
    const pages: { page: RawResponse; fallback: RawResponse }[] = [];
    const busy = await workersBusyDuring(workers, async () => {
      for (let i = 0; i < 20; i++) {
        const path = `/nowhere/${i}`;
        const res = await send(url, 'GET', path);
        assert.equal(res.status, 404, path);
        const token = String(res.headers['x-debug-token']);
        const previous = String(res.headers['x-previous-debug-token']);
        const link = String(res.headers['x-debug-token-link']);
        assert.equal(link, `${url}/_profiler/${token}`);
        links.push({ path, token, previous, link });
        // Followed at once, each on a fresh connection: the next one lands on the other worker.
        pages.push({ page: await send(url, 'GET', new URL(link).pathname), fallback: await send(url, 'GET', `/_profiler/${previous}`) });
      }
    });
    assert.equal(busy, 2, 'one worker answered everything: the test proves nothing');
    const answered = pages.filter(({ page, fallback }) => page.status === 200 && fallback.status === 200).length;
    assert.equal(answered, 20, `${answered} of 20 links (and their sub-request links) answered 200`);
    links.forEach(({ path, token }, i) => {
      const { page, fallback } = pages[i]!;
      assert.ok(page.body.includes(`<h1>GET ${path} `), `${path}: the page names another request`);
      assert.ok(page.body.includes('rest.problem.fallback::index'), `${path}: no fallback controller on the page`);
      assert.ok(fallback.body.includes(`href="/_profiler/${token}"`), `${path}: the sub-request does not link its main request`);
    });

    for (let i = 0; i < 4; i++) {
      const search = await send(url, 'GET', '/_profiler/search_bar');
      assert.equal(search.status, 200);
      for (const { path, token, previous } of links) {
        assert.ok(search.body.includes(`/_profiler/${token}?`), `search ${i}: ${path}'s token ${token} is not listed`);
        assert.ok(search.body.includes(`/_profiler/${previous}?`), `search ${i}: ${path}'s sub-request ${previous} is not listed`);
      }
    }

    // `latest` is the newest request of either worker, whichever worker is asked.
    for (let i = 0; i < 4; i++) {
      const latest = await send(url, 'GET', '/_profiler/latest');
      assert.equal(latest.status, 200, `latest, try ${i}`);
      assert.ok(latest.body.includes(`<h1>GET /nowhere/19 `), `latest, try ${i}: ${latest.body.slice(latest.body.indexOf('<h1>'), latest.body.indexOf('</h1>'))}`);
    }

    const { token } = links[0]!;
    for (const target of [`/_profiler/${token}/exception`, `/_profiler/${token}/exception.css`, `/_profiler/${token}?panel=logger`]) {
      for (let i = 0; i < 2; i++) assert.equal((await send(url, 'GET', target)).status, 200, `${target}, try ${i}`);
    }
    const unknown = await send(url, 'GET', '/_profiler/000000', { accept: 'application/problem+json' });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /Token \\"000000\\" not found\./);

    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    assert.equal(code, 0, run.output().stderr);
  });
});

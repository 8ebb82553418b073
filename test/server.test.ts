import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { send } from './helpers/http.js';
import { createMemoryLogger, runServerProgram as runServer, testConfig } from './helpers/service.js';
import { startServer } from '../src/server.js';

describe('the server program', () => {
  it('prints exactly one line with the real port, serves, and exits 0 on SIGTERM', async () => {
    const run = runServer({});
    const url = await run.listening;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(url, 'http://127.0.0.1:0');
    assert.equal((await send(url, 'GET', '/')).status, 200);
    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    assert.equal(code, 0);
    assert.equal(run.output().stdout, `listening on ${url}\n`);
  });

  it('exits 0 on SIGINT too', async () => {
    const run = runServer({});
    await run.listening;
    run.child.kill('SIGINT');
    assert.equal((await run.exited)[0], 0);
  });

  it('stops on a bad setting with one line naming it, never echoing a secret', async () => {
    const run = runServer({ APP_ENV: 'prod', APP_ID: 'x', APP_KEY: 'x', ACCESS_TOKEN: 'x', JWT_PASSPHRASE: 'hunter2-secret', BROKER_PASSWORD: 'x' });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.equal(run.output().stderr, 'Invalid setting APP_SECRET: must be set (non-empty) in prod\n');
    assert.equal(run.output().stdout, '');
  });

  it('says why when the port is taken', async () => {
    const first = runServer({});
    const port = new URL(await first.listening).port;
    const second = runServer({ PORT: port });
    const [code] = await second.exited;
    assert.equal(code, 1);
    assert.match(second.output().stderr, /^cannot start: listen EADDRINUSE/);
    first.child.kill('SIGTERM');
    await first.exited;
  });
});

describe('graceful stop', () => {
  it('finishes a request in flight, then refuses new connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const arrived = new Promise<void>((resolve) => (started = resolve));
    const running = await startServer({
      config: testConfig(),
      logger: createMemoryLogger(),
      serviceDocument: async () => {
        started();
        await gate;
        return { name: 'slow', version: '1', links: [] };
      },
    });
    const inFlight = send(running.url, 'GET', '/', { accept: 'application/json' });
    await arrived;
    const stopped = running.stop();
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(send(running.url, 'GET', '/'), /ECONNREFUSED/);
    release();
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).name, 'slow');
    await stopped;
  });
});

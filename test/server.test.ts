import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { send, statusOf } from './helpers/http.js';
import { converse, headerOf, waitFor } from './helpers/sockets.js';
import { createMemoryLogger, runServerProgram as runServer, testConfig } from './helpers/service.js';
import { startServer } from '../src/server.js';
import { writeKeyPair } from '../src/jwt/index.js';

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
    const run = runServer({ APP_ENV: 'prod', APP_SECRET: 'k9z', JWT_PASSPHRASE: 'hunter2-secret' });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.equal(run.output().stderr, 'Invalid setting APP_SECRET: is shorter than 4 characters, too short to be masked where it could appear\n');
    assert.equal(run.output().stdout, '');
  });

  it('starts in prod with no credential set and serves', async () => {
    const run = runServer({ APP_ENV: 'prod' });
    const url = await run.listening;
    assert.equal((await send(url, 'GET', '/')).status, 200);
    run.child.kill('SIGTERM');
    assert.equal((await run.exited)[0], 0);
    assert.equal(run.output().stderr, '');
  });

  it('starts with POSTER_API=1 outside dev holding the public key alone: no private key, no JWT_PASSPHRASE', async () => {
    const keys = mkdtempSync(join(tmpdir(), 'server-keys-'));
    try {
      const paths = { secretKeyPath: join(keys, 'private.pem'), publicKeyPath: join(keys, 'public.pem') };
      writeKeyPair(paths, 'a passphrase not given to the server', false);
      rmSync(paths.secretKeyPath);
      const run = runServer({ APP_ENV: 'prod', POSTER_API: '1', JWT_PUBLIC_KEY: paths.publicKeyPath });
      const url = await run.listening;
      assert.equal((await send(url, 'POST', '/api/posters', { 'content-type': 'application/json' }, '{}')).status, 401);
      run.child.kill('SIGTERM');
      assert.equal((await run.exited)[0], 0);
      assert.equal(run.output().stderr, '');
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('names a missing JWT_PUBLIC_KEY (POSTER_API=1) in the one line of bad settings, with the others', async () => {
    const run = runServer({ APP_ENV: 'prod', POSTER_API: '1', APP_SECRET: 'k9z', JWT_PUBLIC_KEY: '/nonexistent/public.pem' });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.equal(
      run.output().stderr,
      'Invalid settings (2): APP_SECRET: is shorter than 4 characters, too short to be masked where it could appear; JWT_PUBLIC_KEY: /nonexistent/public.pem: no such file\n',
    );
    assert.equal(run.output().stdout, '');
  });

  it('names PORT when the port is taken', async () => {
    const first = runServer({});
    try {
      const port = new URL(await first.listening).port;
      const second = runServer({ PORT: port });
      const [code] = await second.exited;
      assert.equal(code, 1);
      assert.equal(second.output().stderr, `cannot start: PORT ${port} is in use (EADDRINUSE)\n`);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it('names HOST when a well-formed host name does not resolve', async () => {
    const run = runServer({ HOST: 'nowhere.invalid' });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(run.output().stderr, /^cannot start: HOST "nowhere\.invalid" cannot be listened on \((ENOTFOUND|EAI_AGAIN)\)\n$/);
  });
});

describe('startServer', () => {
  it('names HOST when the address is not one of this machine', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a host.
    await assert.rejects(startServer({ config: testConfig({ HOST: '192.0.2.1' }), logger: createMemoryLogger() }), {
      name: 'ListenError',
      message: 'HOST "192.0.2.1" cannot be listened on (EADDRNOTAVAIL)',
    });
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

  it('closes idle keep-alive connections cleanly and answers the one in flight with Connection: close', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const arrived = new Promise<void>((resolve) => (started = resolve));
    const doc = { name: 'svc', version: '1', links: [] };
    const running = await startServer({
      config: testConfig(),
      logger: createMemoryLogger(),
      serviceDocument: async () => {
        if (++calls <= 16) return doc;
        started();
        await gate;
        return doc;
      },
    });
    const request = 'GET / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n';
    const idle = await Promise.all(Array.from({ length: 16 }, () => converse(running.url, request)));
    for (const c of idle) assert.equal(headerOf(await waitFor(c, /\r\n\r\n[\s\S]*\}/), 'connection'), 'keep-alive');
    const busy = await converse(running.url, request);
    await arrived;
    const stopped = running.stop();
    const closes = await Promise.all(idle.map((c) => c.closed));
    assert.deepEqual(closes.map((c) => c.how), Array(16).fill('fin'));
    release();
    const raw = await waitFor(busy, /\r\n\r\n[\s\S]*\}/);
    assert.equal(statusOf(raw), 200);
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.equal((await busy.closed).how, 'fin');
    await stopped;
  });
});

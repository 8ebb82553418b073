/**
 * The graceful stop and keep-alive connections. SIGTERM to the server program while 16 keep-alive
 * clients loop on `GET /` and a poster renders, with two spinning processes keeping both cores
 * busy: a starved event loop is when a connection whose next request has arrived but is not yet
 * read looks idle, and closing it then resets it. Every request a client sent must get its whole
 * answer; a connection may close only with a FIN, and only when no request is outstanding on it.
 * Then, in process, the two cases the loops do not reach: a request sent on an idle connection
 * after the stop began, and one that crosses the FIN of a connection closed as quiet.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../src/jwt/index.js';
import { startServer } from '../src/server.js';
import { startSpinners } from './helpers/busy-cores.js';
import { eventually } from './helpers/eventually.js';
import { startRequestLoop } from './helpers/request-loop.js';
import { createMemoryLogger, runServerProgram, testConfig } from './helpers/service.js';
import { statusOf } from './helpers/http.js';
import { converse, headerOf, waitFor } from './helpers/sockets.js';

const CONNECTIONS = 16;
/** Answers each connection has had before the poster is sent: the loops are under way. */
const WARM_ANSWERS = 20;

const root = mkdtempSync(join(tmpdir(), 'stop-under-load-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'stop under load passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);

describe('SIGTERM with every core busy', () => {
  it('answers every request sent on 16 looping keep-alive connections and the poster in flight, resets none, and exits 0', { timeout: 120_000 }, async (t) => {
    const spinners = startSpinners(2);
    t.after(() => spinners.stop());
    const run = runServerProgram({
      APP_ENV: 'prod',
      APP_DEBUG: '0',
      POSTER_API: '1',
      PUBLIC_DIR: join(root, 'public'),
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
    });
    t.after(async () => {
      if (run.child.exitCode !== null || run.child.signalCode !== null) return;
      run.child.kill('SIGKILL');
      await run.exited;
    });
    const url = await run.listening;
    const token = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'ana', 3600, Date.now());

    const loops = Array.from({ length: CONNECTIONS }, () => startRequestLoop(url, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    const answered = () => loops.reduce((sum, loop) => sum + loop.report.answered, 0);
    await eventually('every loop answered', () => loops.every((loop) => loop.report.answered >= WARM_ANSWERS), Boolean, 30_000);
    const body = JSON.stringify({ title: 'Stop under load' });
    const poster = await converse(url, [
      'POST /api/posters HTTP/1.1', 'Host: x', `Authorization: Bearer ${token}`, 'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`, '', body,
    ].join('\r\n'));
    // The poster's bytes went out before the next round of GETs: once that round is answered,
    // the server has read the poster request, and renders it.
    const before = answered();
    await eventually('a round of answers after the poster', () => answered() >= before + 2 * CONNECTIONS, Boolean, 30_000);
    assert.equal(poster.received(), '', 'the poster was answered before the stop: nothing was in flight');
    run.child.kill('SIGTERM');

    const [code, signal] = await run.exited;
    await Promise.all(loops.map((loop) => loop.done));
    const posterClosed = await poster.closed;
    assert.deepEqual([code, signal], [0, null], run.output().stderr);

    const raw = poster.received();
    assert.equal(statusOf(raw), 201, raw);
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.equal(posterClosed.how, 'fin');
    const reports = loops.map((loop) => loop.report);
    const errors = reports.flatMap((r, i) => r.errors.map((e) => `connection ${i}: ${e}`));
    assert.deepEqual(errors, [], 'no connection is reset');
    const unanswered = reports.flatMap((r, i) => r.unanswered.map((bytes) => `connection ${i}: ${JSON.stringify(bytes)}`));
    assert.deepEqual(unanswered, [], 'every request sent is answered');
    for (const [i, r] of reports.entries()) assert.equal(r.sent, r.answered, `connection ${i}: ${JSON.stringify(r)}`);
    // Each connection ends once, after a closing answer or closed while idle, and the client's
    // next connection is refused.
    const total = (field: 'closing' | 'retried' | 'refused') => reports.reduce((sum, r) => sum + r[field], 0);
    assert.equal(total('closing') + total('retried'), CONNECTIONS);
    assert.equal(total('refused'), CONNECTIONS);
    t.diagnostic(`answers: ${answered()}, with Connection: close: ${total('closing')}, closed idle (the client went on elsewhere): ${total('retried')}`);
  });
});

describe('a graceful stop with idle keep-alive connections', () => {
  const request = 'GET / HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n';
  const answer = /\r\n\r\n[\s\S]*\}/;

  it('answers a request sent on an idle connection after the stop began, with Connection: close', async () => {
    const running = await startServer({ config: testConfig(), logger: createMemoryLogger() });
    const c = await converse(running.url, request);
    assert.equal(headerOf(await waitFor(c, answer), 'connection'), 'keep-alive');
    const stopped = running.stop();
    await new Promise((r) => setTimeout(r, 50));
    const before = c.received().length;
    c.socket.write(request);
    await waitFor(c, new RegExp(`^[\\s\\S]{${before}}HTTP/1\\.1 [\\s\\S]*\\}$`));
    const raw = c.received().slice(before);
    assert.equal(statusOf(raw), 200);
    assert.equal(headerOf(raw, 'connection'), 'close');
    assert.equal((await c.closed).how, 'fin');
    await stopped;
  });

  it('closes a quiet connection with a FIN and reads a request that crosses it instead of resetting', async () => {
    const running = await startServer({ config: testConfig(), logger: createMemoryLogger() });
    const url = new URL(running.url);
    const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    const errors: string[] = [];
    socket.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.write(request);
    await eventually('the first answer', () => answer.test(received));
    const stopped = running.stop();
    // The client's next requests leave as the server's FIN arrives: they are read, not reset (a
    // reset would fail the second write).
    await new Promise((resolve) => socket.once('end', resolve));
    socket.write(request);
    await new Promise((r) => setTimeout(r, 100));
    socket.end(request);
    await new Promise((resolve) => socket.once('close', resolve));
    assert.deepEqual(errors, []);
    await stopped;
  });
});

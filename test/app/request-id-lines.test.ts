/**
 * One request, one id: with a sink that writes request ids, every error-log line logged while a
 * request is handled ends with ` {"request_id":"<id>"}`, the id its answer's `X-Request-Id` and
 * its access line carry; a line logged for no request carries none. Whole servers on port 0,
 * their logs read from the files.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeKeyPair } from '../../src/jwt/index.js';
import { createFileLogger } from '../../src/log/file-sink.js';
import { startServer, type StartOptions } from '../../src/server.js';
import { send, sendRaw, statusOf } from '../helpers/http.js';
import { readAccessLog, readErrorLog } from '../helpers/log-files.js';
import { testConfig } from '../helpers/service.js';

const SECRET = 'br0ker-pass-w0rd';
const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [a-z_]+\.[A-Z]+: /;
/** What ends a line logged for a request, the id captured. */
const ID_END = / \{"request_id":"([^"]*)"\}$/;

interface Logs {
  /** The error log's lines, in order. */
  readonly lines: string[];
  /** The access log's entries. */
  readonly access: Record<string, unknown>[];
}

interface Served {
  readonly url: string;
  /** Stops the service (its logs flushed) and reads both logs. */
  stop(): Promise<Logs>;
}

/** A whole service with settings `vars`, its error log written by a sink with `requestIds`. */
async function serve(vars: Record<string, string>, requestIds: boolean, options: Omit<StartOptions, 'config' | 'logger'> = {}): Promise<Served> {
  const config = testConfig(vars);
  const logger = createFileLogger({ dir: config.logDir, appEnv: config.appEnv, timeZone: config.logTimeZone, maxFiles: config.logMaxFiles, requestIds });
  const running = await startServer({ ...options, config, logger });
  const stop = async (): Promise<Logs> => {
    await running.stop();
    await logger.close();
    return { lines: readErrorLog(config.logDir).split('\n').filter((line) => line !== ''), access: readAccessLog(config.logDir) };
  };
  after(() => running.stop());
  return { url: running.url, stop };
}

/** The error lines that end with `id`, with that end cut off: the lines as the original wrote them. */
function linesOf(logs: Logs, id: string): string[] {
  return logs.lines.filter((line) => ID_END.exec(line)?.[1] === id).map((line) => line.replace(ID_END, ''));
}

/** The access entry of the request whose answer carried `id`. */
function accessOf(logs: Logs, id: string): Record<string, unknown> | undefined {
  return logs.access.find((entry) => entry.request_id === id);
}

const idOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-request-id']);

describe('request ids in the error log', () => {
  it('ends both lines of a 404 with the id of its X-Request-Id header and its access line', async () => {
    const service = await serve({}, true);
    const res = await send(service.url, 'GET', '/doc/1.0/lock');
    assert.equal(res.status, 404);
    const id = idOf(res);
    assert.match(id, /^[0-9a-f]{32}$/);
    const logs = await service.stop();
    const lines = linesOf(logs, id);
    assert.equal(lines.length, 2, logs.lines.join('\n'));
    assert.match(lines[0]!, new RegExp(`${LINE.source}`));
    assert.ok(lines[0]!.endsWith(' request.ERROR: No route found for "GET /doc/1.0/lock"'), lines[0]);
    assert.ok(lines[1]!.endsWith(` app.ERROR: Incident: - Type: ${service.url}/problem/1.0 - Cause: 404 - Title: Not Found`), lines[1]);
    assert.equal(accessOf(logs, id)?.target, '/doc/1.0/lock');
  });

  it('gives each of two requests at once its own id, on its own lines', async () => {
    const service = await serve({}, true);
    const [a, b] = await Promise.all([send(service.url, 'GET', '/a'), send(service.url, 'POST', '/')]);
    const logs = await service.stop();
    assert.notEqual(idOf(a), idOf(b));
    assert.deepEqual(linesOf(logs, idOf(a)).map((line) => line.replace(LINE, '')), ['No route found for "GET /a"']);
    assert.deepEqual(linesOf(logs, idOf(b)).map((line) => line.replace(LINE, '')), [
      'No route found for "POST /": Method Not Allowed (Allow: OPTIONS, GET, HEAD)',
    ]);
    assert.equal(accessOf(logs, idOf(a))?.status, 404);
    assert.equal(accessOf(logs, idOf(b))?.status, 405);
  });

  it('writes a trusted proxy\'s id, as the answer and the access line do', async () => {
    const service = await serve({ TRUSTED_PROXIES: '127.0.0.1' }, true);
    const res = await send(service.url, 'GET', '/x', { 'x-request-id': 'lb-7.a_b' });
    assert.equal(idOf(res), 'lb-7.a_b');
    const logs = await service.stop();
    assert.equal(linesOf(logs, 'lb-7.a_b').length, 1, logs.lines.join('\n'));
    assert.equal(accessOf(logs, 'lb-7.a_b')?.target, '/x');
  });

  it('masks a secret in a proxy\'s id in the error lines, as the access line masks it', async () => {
    const service = await serve({ TRUSTED_PROXIES: '127.0.0.1', BROKER_PASSWORD: SECRET }, true);
    const res = await send(service.url, 'GET', '/x', { 'x-request-id': `lb-${SECRET}` });
    // The client knows what it sent: its answer echoes it.
    assert.equal(idOf(res), `lb-${SECRET}`);
    const logs = await service.stop();
    assert.ok(!logs.lines.some((line) => line.includes(SECRET)), logs.lines.join('\n'));
    assert.equal(linesOf(logs, 'lb-******').length, 1, logs.lines.join('\n'));
    assert.equal(accessOf(logs, 'lb-******')?.target, '/x');
  });

  it('ends the CRITICAL line of a 500 in dev, its stack escaped on one line, with the request\'s id', async () => {
    const service = await serve({ APP_ENV: 'dev', APP_DEBUG: '1' }, true, {
      serviceDocument: () => {
        throw new Error('the settings store failed for the test');
      },
    });
    const res = await send(service.url, 'GET', '/', { accept: 'application/json' });
    assert.equal(res.status, 500);
    const notFound = await send(service.url, 'GET', '/doc/1.0/x');
    const logs = await service.stop();
    const lines = linesOf(logs, idOf(res));
    assert.equal(lines.length, 1, logs.lines.join('\n'));
    assert.match(lines[0]!, /request\.CRITICAL: Uncaught Error: "the settings store failed for the test" Error: the settings store failed for the test\\n {4}at /);
    assert.equal(accessOf(logs, idOf(res))?.status, 500);
    // The dev fallback answers a 404 as a sub-request: still the one id of the request.
    assert.equal(linesOf(logs, idOf(notFound)).length, 2, logs.lines.join('\n'));
  });

  it('ends the poster API\'s problem lines with the request\'s id', async () => {
    const keys = mkdtempSync(join(tmpdir(), 'request-id-keys-'));
    after(() => rmSync(keys, { recursive: true, force: true }));
    const keyPaths = { secretKeyPath: join(keys, 'private.pem'), publicKeyPath: join(keys, 'public.pem') };
    writeKeyPair(keyPaths, 'request id passphrase', false);
    const service = await serve({
      POSTER_API: '1',
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: 'request id passphrase',
    }, true);
    const res = await send(service.url, 'POST', '/api/posters', { 'content-type': 'application/json' }, '{}');
    assert.equal(res.status, 401);
    const logs = await service.stop();
    const lines = linesOf(logs, idOf(res));
    assert.ok(lines.some((line) => line.endsWith(' request.ERROR: This route needs a bearer token.')), logs.lines.join('\n'));
    assert.equal(accessOf(logs, idOf(res))?.status, 401);
  });

  it('writes no id on a line logged for no request (a request the parser refused, logged once for a burst)', async () => {
    const service = await serve({}, true);
    assert.equal(statusOf(await sendRaw(service.url, 'GET / HTTP/1.1\r\nBad Header\r\n\r\n')), 400);
    const logs = await service.stop();
    const refused = logs.lines.filter((line) => line.includes('request.ERROR: Bad request from '));
    assert.equal(refused.length, 1, logs.lines.join('\n'));
    assert.doesNotMatch(refused[0]!, ID_END);
  });

  it('writes the lines exactly as observed with a sink that writes no ids (the default)', async () => {
    const service = await serve({}, false);
    const res = await send(service.url, 'GET', '/doc/1.0/lock');
    const logs = await service.stop();
    assert.equal(res.status, 404);
    assert.deepEqual(logs.lines.map((line) => line.replace(LINE, '')), [
      'No route found for "GET /doc/1.0/lock"',
      `Incident: - Type: ${service.url}/problem/1.0 - Cause: 404 - Title: Not Found`,
    ]);
  });
});

describe('LOG_REQUEST_IDS', () => {
  it('turns the ids on for the service as started from its settings, and leaves them off by default', async () => {
    for (const [setting, withIds] of [['1', true], ['0', false]] as const) {
      const config = testConfig({ LOG_REQUEST_IDS: setting, APP_ENV: 'prod', APP_DEBUG: '0' });
      const running = await startServer({ config });
      const res = await send(running.url, 'GET', '/nowhere');
      await running.stop();
      const lines = readErrorLog(config.logDir).split('\n').filter((line) => line.includes('/nowhere'));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.equal(ID_END.exec(lines[0]!)?.[1], withIds ? res.headers['x-request-id'] : undefined, `LOG_REQUEST_IDS=${setting}`);
    }
  });
});

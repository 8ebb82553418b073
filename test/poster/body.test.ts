import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { POSTER_BODY_LIMIT } from '../../src/poster/api.js';
import { PayloadTooLarge, readBody } from '../../src/http/request-body.js';
import { sendRaw, statusOf } from '../helpers/http.js';
import { clockAtWindowStart } from '../helpers/rate-window.js';
import { startTestService } from '../helpers/service.js';

/** A request whose body must not be touched: any listener or read fails the test. */
function untouchableRequest(headers: Record<string, string>): IncomingMessage {
  const touched = (what: string) => () => {
    throw new Error(`the body was read (${what})`);
  };
  return { headers, on: touched('on'), once: touched('once'), read: touched('read'), pipe: touched('pipe'), resume: touched('resume') } as unknown as IncomingMessage;
}

describe('readBody', () => {
  it('refuses a declared Content-Length over POSTER_BODY_LIMIT before reading any body byte', async () => {
    const req = untouchableRequest({ 'content-length': String(POSTER_BODY_LIMIT + 1) });
    await assert.rejects(readBody(req, POSTER_BODY_LIMIT), (err: unknown) => {
      assert.ok(err instanceof PayloadTooLarge, String(err));
      assert.equal(err.status, 413);
      assert.equal(err.message, `The request body is larger than ${POSTER_BODY_LIMIT} bytes.`);
      return true;
    });
  });
});

describe('POST /api/posters answers before reading the body', async () => {
  const root = mkdtempSync(join(tmpdir(), 'poster-body-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const PASS = 'body passphrase';
  const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
  writeKeyPair(keyPaths, PASS, false);
  // The two posts of the 429 case fall in one rate window however slowly the machine runs them.
  const clock = clockAtWindowStart();
  const token = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'body', 3600, clock());
  const api = await startTestService({
    POSTER_API: '1',
    POSTER_RATE_LIMIT: '1',
    VAR_DIR: join(root, 'var'),
    PUBLIC_DIR: join(root, 'public'),
    JWT_SECRET_KEY: keyPaths.secretKeyPath,
    JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
    JWT_PASSPHRASE: PASS,
  }, { renderPool: { size: 1 }, clock });
  /** A head announcing 10 MB that never come: only an answer given without reading can arrive. */
  const headOnly = (headers: string) => sendRaw(api.url, `POST /api/posters HTTP/1.1\r\nHost: a\r\nContent-Length: 10000000\r\n${headers}\r\n`);

  it('answers 401 without a token, and closes the connection', async () => {
    const raw = await headOnly('Content-Type: application/json\r\n');
    assert.equal(statusOf(raw), 401);
    assert.match(raw, /\r\nconnection: close\r\n/i);
  });

  it('answers 415 to another media type, and closes the connection', async () => {
    const raw = await headOnly(`Authorization: Bearer ${token}\r\nContent-Type: text/plain\r\n`);
    assert.equal(statusOf(raw), 415);
    assert.match(raw, /\r\nconnection: close\r\n/i);
  });

  it('answers 429 past the rate limit, and closes the connection', async () => {
    const spent = await sendRaw(api.url, `POST /api/posters HTTP/1.1\r\nHost: a\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    assert.equal(statusOf(spent), 422);
    const raw = await headOnly(`Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n`);
    assert.equal(statusOf(raw), 429);
    assert.match(raw, /\r\nretry-after: \d+\r\n/i);
    assert.match(raw, /\r\nconnection: close\r\n/i);
  });
});

/**
 * HTTPS from the process (docs/deployment.md, "HTTPS without a proxy"): the same answers over HTTP/1.1 and
 * h2, Strict-Transport-Security, https links, HTTP2=0, the redirect listener, the certificate
 * read again on request, and a stop that closes h2 connections.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientHttp2Session } from 'node:http2';
import tls from 'node:tls';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { send } from '../helpers/http.js';
import { connectHttp2, handshake, requestHttp1, requestHttp2, type SecureResponse, TEST_CA, TLS_FIXTURES, TLS_SETTINGS } from '../helpers/https.js';
import { startTestService } from '../helpers/service.js';

/** Headers that differ between two answers by nature: when, which request, and HTTP/1.1's connection management. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'expires']);

function comparable(res: SecureResponse): { status: number; headers: Record<string, unknown>; body: string } {
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_ANSWER.has(name)));
  return { status: res.status, headers, body: res.body };
}

/**
 * An h2 connection opened on first use and opened again once closed: the service closes an idle
 * one after the keep-alive time, which a loaded machine may let pass between two tests.
 */
function openedSession(url: string): () => ClientHttp2Session {
  let session: ClientHttp2Session | undefined;
  after(() => session?.close());
  return () => {
    if (session === undefined || session.closed || session.destroyed) session = connectHttp2(url);
    return session;
  };
}

const serialOf = (file: string) => new X509Certificate(readFileSync(join(TLS_FIXTURES, file))).serialNumber;

describe('the HTTPS listener', async () => {
  const service = await startTestService({ ...TLS_SETTINGS, APP_ENV: 'prod', APP_DEBUG: '0' });
  const session = openedSession(service.url);

  it('says https in its URL and links', async () => {
    assert.match(service.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const home = await requestHttp2(session(), 'GET', '/', { accept: 'application/json' });
    const port = new URL(service.url).port;
    assert.equal(home.status, 200);
    assert.match(home.body, new RegExp(`"https://localhost:${port}/doc/"`));
  });

  it('gives over h2 the answers HTTP/1.1 gives: status, headers less the per-connection ones, body', async () => {
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET', '/', { accept: 'application/json' }],
      ['GET', '/', { accept: 'text/html' }],
      ['HEAD', '/', {}],
      ['OPTIONS', '/', {}],
      ['GET', '/nope', { accept: 'application/json' }],
      ['GET', '/nope?x=1', { accept: 'text/html' }],
      ['DELETE', '/', { accept: 'application/json' }],
      ['POST', '/', { accept: 'application/json', 'x-http-method': 'PUT', 'content-type': 'application/json' }, '{}'],
      ['POST', '/', { 'x-http-method': 'HEAD', 'content-type': 'application/json' }, '{}'],
      ['GET', '/static/../../etc/passwd', { accept: 'application/json' }],
    ];
    for (const [method, path, headers, body] of cases) {
      const overHttp1 = await requestHttp1(service.url, method, path, headers, body);
      const overHttp2 = await requestHttp2(session(), method, path, headers, body);
      assert.deepEqual(comparable(overHttp2), comparable(overHttp1), `${method} ${path}`);
    }
  });

  it('keeps the 404 and 405 texts and the Allow list over h2', async () => {
    const missing = await requestHttp2(session(), 'GET', '/x', { accept: 'application/json' });
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).detail, 'No route found for "GET /x"');
    const refused = await requestHttp2(session(), 'PUT', '/', { accept: 'application/json' });
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.allow, 'OPTIONS, GET, HEAD');
    assert.equal(JSON.parse(refused.body).detail, 'No route found for "PUT /": Method Not Allowed (Allow: OPTIONS, GET, HEAD)');
  });

  it('sends Strict-Transport-Security for a year on every answer, over both protocols', async () => {
    for (const res of [await requestHttp1(service.url, 'GET', '/nope'), await requestHttp2(session(), 'GET', '/')]) {
      assert.equal(res.headers['strict-transport-security'], 'max-age=31536000');
    }
  });

  it('offers h2 and http/1.1 by ALPN, with TLS 1.2 at least', async () => {
    assert.equal((await handshake(service.url, ['h2', 'http/1.1'])).protocol, 'h2');
    assert.equal((await handshake(service.url, ['http/1.1'])).protocol, 'http/1.1');
    await assert.rejects(
      new Promise((resolve, reject) => {
        const socket = tls.connect({ host: 'localhost', port: Number(new URL(service.url).port), ca: TEST_CA, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve(socket.end()));
        socket.on('error', reject);
      }),
      /version|protocol/i,
    );
  });

  it('refuses a renegotiation by closing the connection, with no HTTP answer written into the TLS exchange', async () => {
    const received = await new Promise<string>((resolve) => {
      const socket = tls.connect({ host: 'localhost', port: Number(new URL(service.url).port), ca: TEST_CA, maxVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] }, () => {
        socket.renegotiate({ rejectUnauthorized: true }, () => {});
      });
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve(text));
    });
    assert.equal(received, '');
    assert.ok(service.log.lines.some((line) => line.message.startsWith('TLS error from 127.0.0.1: ERR_TLS_RENEGOTIATION_DISABLED')), JSON.stringify(service.log.lines));
  });

  it('answers a plain-HTTP request on the TLS port with no HTTP answer', async () => {
    await assert.rejects(send(service.url.replace('https:', 'http:'), 'GET', '/'));
  });
});

describe('static files and posters over h2', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tls-static-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const publicDir = join(root, 'public');
  mkdirSync(publicDir);
  writeFileSync(join(publicDir, 'notes.txt'), 'abcdefghijklmnopqrstuvwxyz\n'.repeat(1000));
  const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
  writeKeyPair(keyPaths, 'tls poster passphrase', false);
  const service = await startTestService({
    ...TLS_SETTINGS, PUBLIC_DIR: publicDir, POSTER_API: '1',
    JWT_SECRET_KEY: keyPaths.secretKeyPath, JWT_PUBLIC_KEY: keyPaths.publicKeyPath, JWT_PASSPHRASE: 'tls poster passphrase',
  });
  const session = openedSession(service.url);

  it('serves a file, a range of it and a 304 alike over both protocols', async () => {
    const whole = await requestHttp2(session(), 'GET', '/static/notes.txt');
    assert.equal(whole.status, 200);
    assert.equal(whole.body.length, 27_000);
    const etag = String(whole.headers.etag);
    const cases: [string, Record<string, string>][] = [
      ['/static/notes.txt', {}],
      ['/static/notes.txt', { range: 'bytes=27-53' }],
      ['/static/notes.txt', { range: 'bytes=99999-' }],
      ['/static/notes.txt', { 'if-none-match': etag }],
      ['/static/missing.txt', { accept: 'application/json' }],
    ];
    for (const [path, headers] of cases) {
      const overHttp1 = await requestHttp1(service.url, 'GET', path, headers);
      const overHttp2 = await requestHttp2(session(), 'GET', path, headers);
      assert.deepEqual(comparable(overHttp2), comparable(overHttp1), `${path} ${JSON.stringify(headers)}`);
    }
    const range = await requestHttp2(session(), 'GET', '/static/notes.txt', { range: 'bytes=27-53' });
    assert.equal(range.status, 206);
    assert.equal(range.body, 'abcdefghijklmnopqrstuvwxyz\n');
  });

  it('renders a poster asked for over h2, its URL in https, and serves it', async () => {
    const { privateKey } = loadKeyPair(keyPaths, 'tls poster passphrase');
    const token = await issueToken(privateKey, 'ana', 3600, Date.now());
    const made = await requestHttp2(session(), 'POST', '/api/posters', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, JSON.stringify({ title: 'Over h2' }));
    assert.equal(made.status, 201, made.body);
    const { url, bytes } = JSON.parse(made.body) as { url: string; bytes: number };
    assert.match(url, new RegExp(`^https://localhost:${new URL(service.url).port}/static/posters/[0-9a-f]+\\.jpg$`));
    const image = await requestHttp2(session(), 'GET', new URL(url).pathname);
    assert.equal(image.status, 200);
    assert.equal(Number(image.headers['content-length']), bytes);
    const refused = await requestHttp2(session(), 'POST', '/api/posters', { 'content-type': 'application/json', accept: 'application/json' }, '{}');
    assert.equal(refused.status, 401);
    assert.match(String(refused.headers['www-authenticate']), /^Bearer/);
  });
});

describe('HTTPS settings', () => {
  it('sends no Strict-Transport-Security with HSTS_MAX_AGE=0, and another max-age when asked', async () => {
    const off = await startTestService({ ...TLS_SETTINGS, HSTS_MAX_AGE: '0' });
    assert.equal((await requestHttp1(off.url, 'GET', '/')).headers['strict-transport-security'], undefined);
    const day = await startTestService({ ...TLS_SETTINGS, HSTS_MAX_AGE: '86400' });
    assert.equal((await requestHttp1(day.url, 'GET', '/')).headers['strict-transport-security'], 'max-age=86400');
  });

  it('offers http/1.1 alone with HTTP2=0', async () => {
    const service = await startTestService({ ...TLS_SETTINGS, HTTP2: '0' });
    assert.equal((await handshake(service.url, ['h2', 'http/1.1'])).protocol, 'http/1.1');
    // A client that speaks h2 alone is told so in the handshake (RFC 7301 3.2), not left hanging.
    await assert.rejects(handshake(service.url, ['h2']), /no application protocol/);
  });

  it('opens a key encrypted with TLS_KEY_PASSPHRASE', async () => {
    const service = await startTestService({ ...TLS_SETTINGS, TLS_KEY: `${TLS_FIXTURES}/localhost-encrypted.key`, TLS_KEY_PASSPHRASE: 'correct horse' });
    assert.equal((await requestHttp1(service.url, 'GET', '/')).status, 200);
  });

  it('closes a connection whose handshake is done but whose request never comes, after the head timeout', async () => {
    const service = await startTestService(TLS_SETTINGS, { timeouts: { headMs: 300 } });
    const closed = await new Promise<string>((resolve) => {
      const socket = tls.connect({ host: 'localhost', port: Number(new URL(service.url).port), ca: TEST_CA, ALPNProtocols: ['http/1.1'] });
      socket.on('error', () => {});
      socket.on('close', () => resolve('closed'));
    });
    assert.equal(closed, 'closed');
  });
});

describe('the certificate read again (SIGHUP)', () => {
  it('serves a renewed pair from the next handshake on, the open h2 connection going on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-rotate-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    copyFileSync(join(TLS_FIXTURES, 'localhost-chain.pem'), join(dir, 'cert.pem'));
    copyFileSync(join(TLS_FIXTURES, 'localhost.key'), join(dir, 'key.pem'));
    const service = await startTestService({ TLS_CERT: join(dir, 'cert.pem'), TLS_KEY: join(dir, 'key.pem') });
    const session = connectHttp2(service.url);
    after(() => session.close());
    assert.equal((await requestHttp2(session, 'GET', '/')).status, 200);
    assert.equal((await handshake(service.url)).serial, serialOf('localhost.pem'));
    assert.equal(service.reloadCertificate(), false, 'nothing changed');

    copyFileSync(join(TLS_FIXTURES, 'rotated-chain.pem'), join(dir, 'cert.new'));
    copyFileSync(join(TLS_FIXTURES, 'rotated.key'), join(dir, 'key.new'));
    renameSync(join(dir, 'cert.new'), join(dir, 'cert.pem'));
    renameSync(join(dir, 'key.new'), join(dir, 'key.pem'));
    assert.equal(service.reloadCertificate(), true);
    assert.equal((await handshake(service.url)).serial, serialOf('rotated.pem'));
    assert.equal((await requestHttp2(session, 'GET', '/')).status, 200, 'the h2 connection opened before goes on');
    assert.ok(service.log.lines.some((line) => line.level === 'INFO' && line.message.startsWith('TLS certificate reloaded')), JSON.stringify(service.log.lines));

    // A broken pair (the first certificate with the second key) is refused; the served one stays.
    copyFileSync(join(TLS_FIXTURES, 'localhost-chain.pem'), join(dir, 'cert.pem'));
    assert.equal(service.reloadCertificate(), false);
    assert.equal((await handshake(service.url)).serial, serialOf('rotated.pem'));
    assert.ok(service.log.lines.some((line) => line.level === 'ERROR' && line.message.startsWith('TLS certificate not reloaded')), JSON.stringify(service.log.lines));
  });
});

describe('a stop with h2 connections open', () => {
  it('closes them, after their streams, and resolves', async () => {
    const service = await startTestService(TLS_SETTINGS);
    const session = connectHttp2(service.url);
    assert.equal((await requestHttp2(session, 'GET', '/')).status, 200);
    const closed = new Promise((resolve) => session.once('close', resolve));
    await service.stop();
    await closed;
    assert.equal(session.closed || session.destroyed, true);
  });
});

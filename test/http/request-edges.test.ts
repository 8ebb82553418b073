/**
 * Odd and hostile requests, over raw sockets: absolute-form targets, Host counts, transfer
 * codings, UTF-8 text, secrets, the TRUSTED_HOSTS and profiler bounds (docs/http.md, "Routing and errors" and "Dev profiler" and "Limits").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config/config.js';
import { sendRaw, statusOf } from '../helpers/http.js';
import { startTestService, testConfig } from '../helpers/service.js';

const service = await startTestService();
const SECRET = 'sup3r-s3cret-value';
const guarded = await startTestService({ APP_SECRET: SECRET, APP_KEY: 'another-key-value' });

/** One request on its own connection (closed after it); the response as UTF-8 text. */
async function raw(url: string, head: string | Buffer, timeoutMs?: number): Promise<{ status: number; headers: string; body: string }> {
  const text = Buffer.from(await sendRaw(url, head, timeoutMs), 'latin1').toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  return { status: statusOf(text), headers: text.slice(0, split).toLowerCase(), body: text.slice(split + 4) };
}

const request = (target: string, headers: string, method = 'GET') =>
  `${method} ${target} HTTP/1.1\r\n${headers}Accept: application/json\r\nConnection: close\r\n\r\n`;

describe('absolute-form targets', () => {
  it('gives an absolute-form target without a path the path / (GET http://h?x=1 is GET /)', async () => {
    const res = await raw(service.url, request('http://localhost?x=1', 'Host: localhost\r\n'));
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).name, 'problem-service');
  });

  it('takes the host from the target, not the Host header, for links', async () => {
    const res = await raw(service.url, request('http://api.example:8080/', 'Host: localhost\r\n'));
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).links.doc, 'http://api.example:8080/doc/');
  });

  it('validates the target authority as the Host', async () => {
    const res = await raw(service.url, request('http://bad_host!/x', 'Host: localhost\r\n'));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).detail, 'Invalid Host "bad_host!".');
  });

  it('applies TRUSTED_HOSTS to the target authority', async () => {
    const trusting = await startTestService({ TRUSTED_HOSTS: 'localhost' });
    const res = await raw(trusting.url, request('http://evil.example/', 'Host: localhost\r\n'));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).detail, 'Untrusted Host "evil.example".');
  });
});

describe('the Host header count', () => {
  it('answers 400 to two Host headers', async () => {
    const res = await raw(service.url, request('/', 'Host: localhost\r\nHost: evil.example\r\n'));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).detail, 'The request has 2 Host headers.');
  });

  it('answers 400 to an HTTP/1.1 request without Host', async () => {
    const res = await raw(service.url, request('/', ''));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).detail, 'The request has no Host header.');
  });

  it('answers an HTTP/1.0 request without Host', async () => {
    const res = await raw(service.url, 'GET / HTTP/1.0\r\nAccept: application/json\r\n\r\n');
    assert.equal(res.status, 200);
  });

  it('answers 400 to a Host longer than 255 characters before matching TRUSTED_HOSTS', async () => {
    const trusting = await startTestService({ TRUSTED_HOSTS: '^[a-z.]+$' });
    const host = `${'a'.repeat(250)}.example`;
    const res = await raw(trusting.url, request('/', `Host: ${host}\r\n`));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).detail, `Invalid Host "${host}".`);
  });
});

describe('HTTP versions', () => {
  for (const version of ['2.0', '0.9']) {
    it(`answers HTTP/${version} (which Node's parser lets through) with a 400 problem, logs it and closes, though keep-alive was asked (found by the fuzz tier)`, async () => {
      service.log.clear();
      // Keep-alive asked and the socket left open: only the service's own close ends the exchange.
      const res = await raw(service.url, `GET /x HTTP/${version}\r\nHost: localhost\r\nConnection: keep-alive\r\nAccept: application/json\r\n\r\n`, 3000);
      assert.equal(res.status, 400);
      assert.match(res.headers, /\r\nconnection: close\r\n/);
      assert.equal(JSON.parse(res.body).detail, `HTTP version "${version}" is not supported.`);
      assert.ok(service.log.lines.some((l) => l.channel === 'request' && l.level === 'ERROR' && l.message === `HTTP version "${version}" is not supported.`), JSON.stringify(service.log.lines));
    });
  }
});

describe('transfer codings', () => {
  it('answers 501 at once to an unknown transfer coding and closes', async () => {
    // No body is sent and the socket stays open: the answer must not wait for the body.
    const res = await raw(service.url, 'POST /x HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nTransfer-Encoding: xchunked\r\n\r\n', 3000);
    assert.equal(res.status, 501);
    assert.match(res.headers, /\r\nconnection: close\r\n/);
    assert.equal(JSON.parse(res.body).detail, 'Transfer-Encoding "xchunked" is not supported.');
  });

  it('still reads a chunked body', async () => {
    const res = await raw(service.url, 'POST /x HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    assert.equal(res.status, 404);
  });
});

describe('text from the request is UTF-8', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('shows a UTF-8 Referer as sent, in the problem and the log', async () => {
    service.log.clear();
    const res = await raw(service.url, bytes(request('/x', 'Host: localhost\r\nReferer: https://example.com/ü\r\n')));
    assert.equal(JSON.parse(res.body).detail, 'No route found for "GET /x" (from "https://example.com/ü")');
    assert.equal(service.log.lines[0]?.message, 'No route found for "GET /x" (from "https://example.com/ü")');
  });

  it('shows an invalid byte as U+FFFD', async () => {
    const head = Buffer.concat([Buffer.from('GET /x HTTP/1.1\r\nHost: localhost\r\nReferer: a'), Buffer.from([0x80]), Buffer.from('b\r\nAccept: application/json\r\nConnection: close\r\n\r\n')]);
    const res = await raw(service.url, head);
    assert.equal(JSON.parse(res.body).detail, 'No route found for "GET /x" (from "a\ufffdb")');
  });

  it('shows a UTF-8 Host in the Invalid Host message', async () => {
    const res = await raw(service.url, bytes(request('/', 'Host: ü.example\r\n')));
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).detail, 'Invalid Host "ü.example".');
  });
});

describe('configured secrets', () => {
  it('echo in the answer as the client sent them, and never reach a log line', async () => {
    guarded.log.clear();
    const res = await raw(guarded.url, request(`/${SECRET}/x`, `Host: localhost\r\nReferer: https://e.org/?k=another-key-value\r\n`));
    assert.equal(res.status, 404);
    const doc = JSON.parse(res.body);
    assert.equal(doc.detail, `No route found for "GET /${SECRET}/x" (from "https://e.org/?k=another-key-value")`);
    assert.equal(doc.instance, `/${SECRET}/x`);
    assert.equal(doc.type, `http://localhost/problem/${SECRET}`);
    assert.deepEqual(guarded.log.lines.map((l) => l.message), [
      'No route found for "GET /******/x" (from "https://e.org/?k=******")',
      'Incident: - Type: http://localhost/problem/****** - Cause: 404 - Title: Not Found',
    ]);
  });

  // A de Bruijn sequence of guesses recovered a 4-character secret in 104 requests when an
  // answer was masked exactly when a guess held the secret.
  async function assertSameAnswer(secretGuess: string, missGuess: string): Promise<void> {
    const answer = async (guess: string) => {
      const res = await raw(guarded.url, request(`/${guess}/x`, `Host: localhost\r\nReferer: https://e.org/${guess}\r\n`));
      return { status: res.status, headers: res.headers.replace(/\r\n(date|expires|x-request-id): [^\r]*/g, ''), body: res.body };
    };
    const hit = await answer(secretGuess);
    const miss = await answer(missGuess);
    assert.equal(hit.status, miss.status);
    assert.equal(hit.headers, miss.headers);
    assert.equal(hit.body.replaceAll(secretGuess, missGuess), miss.body);
  }

  it('answers a guess that holds a secret as one that does not, but for the echoed text', () =>
    assertSameAnswer(`abc${SECRET}def`, `abc${'q'.repeat(SECRET.length)}def`));

  it('answers a percent-encoded guess that holds a secret as one that does not, but for the echoed text', () =>
    assertSameAnswer(encodeEveryByte(SECRET), encodeEveryByte('q'.repeat(SECRET.length))));

  it('are masked in the log lines in every form a client sends them: percent-encoded, form-encoded, every byte %XX', async () => {
    const encodedGuard = await startTestService({ APP_SECRET: 's3cr3t+/value==', BROKER_PASSWORD: 'br0ker pass/w0rd' });
    const target = '/s3cr3t%2B%2Fvalue%3D%3D/x';
    const referer = 'https://e.org/?p=br0ker+pass%2Fw0rd&q=%62%72%30ker%20pas%73%2fw0rd';
    const res = await raw(encodedGuard.url, request(target, `Host: localhost\r\nReferer: ${referer}\r\n`));
    assert.equal(JSON.parse(res.body).detail, `No route found for "GET ${target}" (from "${referer}")`);
    assert.deepEqual(encodedGuard.log.lines.map((l) => l.message), [
      'No route found for "GET /******/x" (from "https://e.org/?p=******&q=******")',
      'Incident: - Type: http://localhost/problem/****** - Cause: 404 - Title: Not Found',
    ]);
  });
});

/** `text` with every byte written as %XX, alternating upper- and lower-case hex digits. */
function encodeEveryByte(text: string): string {
  return [...Buffer.from(text)].map((byte, i) => `%${byte.toString(16).padStart(2, '0')[i % 2 === 0 ? 'toUpperCase' : 'toLowerCase']()}`).join('');
}

describe('the dev profiler', () => {
  it('gives an unmatched path under /_profiler/ both debug tokens', async () => {
    const dev = await startTestService({ APP_ENV: 'dev', APP_DEBUG: '1' });
    const res = await raw(dev.url, request('/_profiler/a/b/c', 'Host: localhost\r\n'));
    assert.equal(res.status, 404);
    const main = /\r\nx-debug-token: ([0-9a-f]{6})\r\n/.exec(res.headers)?.[1];
    const previous = /\r\nx-previous-debug-token: ([0-9a-f]{6})\r\n/.exec(res.headers)?.[1];
    assert.ok(main && previous && main !== previous, res.headers);
    const page = await raw(dev.url, request(`/_profiler/${main}`, 'Host: localhost\r\n'));
    assert.equal(page.status, 200);
    assert.ok(page.body.includes('rest.problem.fallback::index'));
  });

  it('keeps at most 8 KiB of a header in a profile', async () => {
    const dev = await startTestService({ APP_ENV: 'dev', APP_DEBUG: '1' });
    const res = await raw(dev.url, request('/x', `Host: localhost\r\nX-Long: ${'q'.repeat(12_000)}\r\n`));
    const token = /\r\nx-debug-token: ([0-9a-f]{6})\r\n/.exec(res.headers)?.[1];
    const page = await raw(dev.url, request(`/_profiler/${token}`, 'Host: localhost\r\n'));
    assert.ok(page.body.includes(`${'q'.repeat(8192)}… [3808 characters cut]`), 'the cut header is not on the page');
    assert.ok(!page.body.includes('q'.repeat(8193)), 'more than 8 KiB of the header was kept');
  });
});

describe('settings that reach a header or a socket', () => {
  const refused = (vars: Record<string, string>, setting: string) =>
    assert.throws(() => testConfig(vars), (err) => err instanceof ConfigError && err.setting === setting && !err.message.includes('\n'));

  it('refuses a NOT_FOUND_CACHE_CONTROL with CR/LF', () => refused({ NOT_FOUND_CACHE_CONTROL: 'public\r\nx-evil: 1' }, 'NOT_FOUND_CACHE_CONTROL'));
  it('refuses a max-age past 2^31-1', () => refused({ NOT_FOUND_CACHE_CONTROL: 'max-age=99999999999' }, 'NOT_FOUND_CACHE_CONTROL'));
  it('refuses an empty directive', () => refused({ NOT_FOUND_CACHE_CONTROL: 'public,,max-age=1' }, 'NOT_FOUND_CACHE_CONTROL'));
  it('accepts a custom policy and derives expires from it', async () => {
    const custom = await startTestService({ NOT_FOUND_CACHE_CONTROL: 'public, max-age=60' });
    const res = await raw(custom.url, request('/x', 'Host: localhost\r\n'));
    assert.match(res.headers, /\r\ncache-control: public, max-age=60\r\n/);
    const date = Date.parse(/\r\ndate: ([^\r]+)/.exec(res.headers)![1]!);
    const expires = Date.parse(/\r\nexpires: ([^\r]+)/.exec(res.headers)![1]!);
    assert.equal(expires - date, 60_000);
  });
  it('refuses HOST=999.1.1.1 naming HOST', () => refused({ HOST: '999.1.1.1' }, 'HOST'));
  it('accepts an IPv6 HOST and a host name', () => {
    assert.equal(testConfig({ HOST: '::1' }).host, '::1');
    assert.equal(testConfig({ HOST: 'localhost' }).host, 'localhost');
  });
  it('refuses PROFILER_MAX above 1,000', () => refused({ PROFILER_MAX: '100000' }, 'PROFILER_MAX'));
  it('refuses a TRUSTED_HOSTS pattern that backtracks catastrophically, naming it', () =>
    refused({ TRUSTED_HOSTS: '^(a+)+$' }, 'TRUSTED_HOSTS'));
  it('accepts the usual subdomain pattern', () => assert.ok(testConfig({ TRUSTED_HOSTS: '^(.+\\.)?example\\.com$' }).trustedHosts));
});

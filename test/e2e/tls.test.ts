/**
 * HTTPS from the process (docs/deployment.md, "HTTPS without a proxy"), seen by real outside clients: curl
 * over h2 and HTTP/1.1, openssl's s_client for the handshake's rules, the certificate renewed
 * under held connections, REDIRECT_PORT's 308 followed by curl, and h2load's 20,000 requests
 * each in the access log. The certificates are the test's own (./tls-helpers.ts). Needs curl,
 * openssl and h2load (nghttp2-client); fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { eventually } from '../helpers/eventually.js';
import { readAccessLog, readErrorLog } from '../helpers/log-files.js';
import { runProgram } from '../helpers/programs.js';
import {
  createTestPki, curl, type CurlAnswer, holdHttp1Connection, pairFiles, replacePair, sClient, sClientCommand, servedSerial,
  startHttpsService, stopService,
} from './tls-helpers.js';

const pki = await createTestPki();
const caPem = readFileSync(pki.ca, 'utf8');
/** The service most tests share: the first leaf, every default, and the redirect listener. */
const service = await startHttpsService(pairFiles(pki, pki.first), { REDIRECT_PORT: '0' });
const origin = `https://localhost:${service.port}`;

/** Header fields that belong to one HTTP/1.1 connection and never appear in h2 (RFC 9113 8.2.2). */
const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];
/** Fields each answer has a value of its own for. */
const PER_ANSWER = ['date', 'x-request-id'];

/**
 * Asserts that the h2 answer is the HTTP/1.1 one: status, body, and every header but the
 * connection-specific and per-answer ones. `expires` is `date` plus the 404's max-age, so two
 * answers a second apart differ in it: its distance from `date` is compared instead.
 */
function assertSameAnswer(h2: CurlAnswer, h1: CurlAnswer): void {
  assert.equal(h2.version, '2');
  assert.equal(h1.version, '1.1');
  assert.equal(h2.status, h1.status);
  assert.equal(h2.body, h1.body);
  const comparable = (answer: CurlAnswer) =>
    Object.fromEntries([...answer.headers].filter(([name]) => ![...CONNECTION_SPECIFIC, ...PER_ANSWER, 'expires'].includes(name)));
  assert.deepEqual(comparable(h2), comparable(h1));
  for (const name of PER_ANSWER) assert.ok(h2.headers.has(name) && h1.headers.has(name), `${name} missing`);
  const expiresIn = (answer: CurlAnswer) => {
    const expires = answer.headers.get('expires');
    return expires === undefined ? undefined : Date.parse(expires) - Date.parse(answer.headers.get('date')!);
  };
  assert.equal(expiresIn(h2), expiresIn(h1));
}

/** curl trusting the test's CA only, over h2 and then over HTTP/1.1, with the same `args`. */
async function bothVersions(args: readonly string[]): Promise<{ h2: CurlAnswer; h1: CurlAnswer }> {
  return {
    h2: await curl(['--cacert', pki.ca, '--http2', ...args]),
    h1: await curl(['--cacert', pki.ca, '--http1.1', ...args]),
  };
}

describe('HTTPS seen by curl', () => {
  it('gets the entry point as JSON over h2 with Strict-Transport-Security', async () => {
    const res = await curl(['--cacert', pki.ca, '--http2', '-H', 'Accept: application/json', `${origin}/`]);
    assert.equal(res.statusLines[0]!.trim(), 'HTTP/2 200');
    assert.equal(JSON.parse(res.body).name, 'problem-service');
    assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000');
  });

  it('answers a 404 over h2 as over HTTP/1.1', async () => {
    const { h2, h1 } = await bothVersions(['-H', 'Accept: application/json', `${origin}/nope`]);
    assert.equal(h2.status, 404);
    assert.equal(JSON.parse(h2.body).detail, 'No route found for "GET /nope"');
    assert.equal(h2.headers.get('content-type'), 'application/problem+json');
    assertSameAnswer(h2, h1);
  });

  it('answers a 405 with the same Allow over h2 as over HTTP/1.1', async () => {
    const { h2, h1 } = await bothVersions(['-X', 'DELETE', '-H', 'Accept: application/json', `${origin}/`]);
    assert.equal(h2.status, 405);
    assert.equal(h2.headers.get('allow'), 'OPTIONS, GET, HEAD');
    assertSameAnswer(h2, h1);
  });

  it('answers HEAD / over h2 as over HTTP/1.1, a length and no body', async () => {
    const { h2, h1 } = await bothVersions(['--head', `${origin}/`]);
    assert.equal(h2.status, 200);
    assert.match(h2.headers.get('content-length') ?? '', /^[1-9]\d*$/);
    assert.equal(h2.body, '');
    assertSameAnswer(h2, h1);
  });

  it('tunnels POST with X-HTTP-Method: PUT over h2 to the 405 HTTP/1.1 gives', async () => {
    const { h2, h1 } = await bothVersions(['-X', 'POST', '-H', 'X-HTTP-Method: PUT', '-H', 'Accept: application/json', '--data', 'a=1', `${origin}/`]);
    assert.equal(h2.status, 405);
    assert.equal(JSON.parse(h2.body).detail, 'No route found for "PUT /": Method Not Allowed (Allow: OPTIONS, GET, HEAD)');
    assertSameAnswer(h2, h1);
  });

  it('sends no Strict-Transport-Security with HSTS_MAX_AGE=0', async () => {
    const other = await startHttpsService(pairFiles(pki, pki.first), { HSTS_MAX_AGE: '0' });
    const { h2, h1 } = await bothVersions([`https://localhost:${other.port}/`]);
    assert.equal(h2.status, 200);
    assert.equal(h2.headers.has('strict-transport-security'), false);
    assert.equal(h1.headers.has('strict-transport-security'), false);
    assert.deepEqual(await stopService(other.program), [0, null]);
  });

  it('ends up on HTTP/1.1 when curl asks for h2 and HTTP2=0', async () => {
    const other = await startHttpsService(pairFiles(pki, pki.first), { HTTP2: '0' });
    const res = await curl(['--cacert', pki.ca, '--http2', '-H', 'Accept: application/json', `https://localhost:${other.port}/`]);
    assert.equal(res.version, '1.1');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('strict-transport-security'), 'max-age=31536000');
    assert.deepEqual(await stopService(other.program), [0, null]);
  });

  it('is refused by curl without the test CA: the certificate is really checked', async () => {
    const result = await runProgram('curl', ['--silent', '--show-error', `${origin}/`]);
    assert.equal(result.code, 60, result.stderr); // CURLE_PEER_FAILED_VERIFICATION
    assert.match(result.stderr, /SSL certificate problem/);
  });
});

describe('the TLS handshake seen by openssl s_client', () => {
  it('verifies the chain against the test CA and picks h2 by ALPN', async () => {
    const result = await sClient(service.port, ['-CAfile', pki.ca, '-alpn', 'h2,http/1.1']);
    const out = result.stdout.toString('utf8');
    assert.equal(result.code, 0, result.stderr);
    assert.match(out, /Verify return code: 0 \(ok\)/);
    assert.match(out, /^ALPN protocol: h2$/m);
  });

  it('accepts TLS 1.2 and refuses TLS 1.1 with a protocol_version alert', async () => {
    const tls12 = await sClient(service.port, ['-CAfile', pki.ca, '-tls1_2']);
    assert.equal(tls12.code, 0, tls12.stderr);
    assert.match(tls12.stdout.toString('utf8'), /Protocol {2}: TLSv1\.2/);
    // SECLEVEL=0 lets this client offer TLS 1.1 at all: what refuses it is the server's answer.
    const tls11 = await sClient(service.port, ['-CAfile', pki.ca, '-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0']);
    assert.notEqual(tls11.code, 0);
    assert.match(tls11.stderr, /alert protocol version/, 'no protocol_version alert from the server');
    assert.match(tls11.stdout.toString('utf8'), /New, \(NONE\), Cipher is \(NONE\)/);
  });

  it('refuses a renegotiation the client asks for on TLS 1.2: no second handshake, the connection ends', async () => {
    // `R` is s_client's command to renegotiate; -msg prints every handshake message both ways.
    const talk = await sClientCommand(service.port, ['-CAfile', pki.ca, '-tls1_2', '-msg'], 'R');
    assert.match(talk.stderr, /^RENEGOTIATING$/m, 's_client did not renegotiate');
    const sent = talk.stdout.match(/^>>> TLS [\d.]+, Handshake \[length [0-9a-f]+\], ClientHello$/gm) ?? [];
    const answered = talk.stdout.match(/^<<< TLS [\d.]+, Handshake \[length [0-9a-f]+\], ServerHello$/gm) ?? [];
    assert.equal(sent.length, 2, 'the second ClientHello was not sent');
    assert.equal(answered.length, 1, 'the server answered the second ClientHello');
    assert.ok(talk.endedByItself, 'the connection stayed open after the refused renegotiation');
    assert.notEqual(talk.code, 0);
  });
});

describe('REDIRECT_PORT', () => {
  it('answers plain HTTP with a 308 to the same target on https://, which curl follows', async () => {
    const line = await eventually('the redirect line', () => /^redirecting to https from (http:\/\/\S+)$/m.exec(service.program.output().stdout)?.[1]);
    const port = Number(new URL(line!).port);
    const redirect = await curl(['-H', 'Host: localhost', `http://127.0.0.1:${port}/a/b?c=1`]);
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.get('location'), `https://localhost:${service.port}/a/b?c=1`);
    const followed = await curl(['-L', '--cacert', pki.ca, '-H', 'Accept: application/json', `http://localhost:${port}/a/b?c=1`]);
    assert.deepEqual(followed.statusLines.map((status) => status.trim()), ['HTTP/1.1 308 Permanent Redirect', 'HTTP/2 404']);
    assert.equal(JSON.parse(followed.body).detail, 'No route found for "GET /a/b"');
  });
});

describe('a renewed certificate', () => {
  /** A service of its own on a pair of files the test replaces, and its error log. */
  async function serviceOnFiles() {
    const files = pairFiles(pki, pki.first);
    const rotating = await startHttpsService(files);
    assert.equal(await servedSerial(rotating.port, pki.ca), pki.first.serial);
    return { files, ...rotating, errorLog: () => readErrorLog(join(rotating.program.varDir, 'log')) };
  }

  it('is served from the next handshake on after SIGHUP, while held HTTP/1.1 and h2 connections answer on', { timeout: 60_000 }, async (t) => {
    const { files, program, port, errorLog } = await serviceOnFiles();
    // Held from before the renewal: a keep-alive HTTP/1.1 connection and an h2 session.
    const held = await holdHttp1Connection(port, caPem);
    const session = http2.connect(`https://localhost:${port}`, { ca: caPem });
    t.after(() => {
      held.close();
      session.destroy();
    });
    assert.equal((await held.get('/')).status, 200);
    assert.equal(await h2Status(session, '/'), 200);

    replacePair(files, pki.second.chain, pki.second.key);
    const hangup = Date.now();
    program.child.kill('SIGHUP');
    await eventually('the second serial', () => servedSerial(port, pki.ca), (serial) => serial === pki.second.serial, 5_000);
    t.diagnostic(`renewed certificate served ${Date.now() - hangup} ms after SIGHUP`);
    // The same connections, still with the first certificate, answer on.
    assert.equal((await held.get('/')).status, 200);
    assert.equal(held.socket.getPeerCertificate().serialNumber, pki.first.serial);
    assert.equal(await h2Status(session, '/'), 200);
    assert.equal((session.socket as TLSSocket).getPeerCertificate().serialNumber, pki.first.serial);
    // The log is written in batches: the line may come a little after the new certificate.
    const reloaded = new RegExp(`app\\.INFO: TLS certificate reloaded \\(serial ${pki.first.serial} -> ${pki.second.serial}, localhost, .*\\) on SIGHUP`);
    await eventually('the reload line', errorLog, (log) => reloaded.test(log));
    held.close();
    session.close();
    assert.deepEqual(await stopService(program), [0, null]);
    assert.doesNotMatch(errorLog(), /\.ERROR: /); // read after the stop flushed the log
  });

  it('is refused on SIGHUP when the key is not the certificate\'s, with an ERROR line, the pair in use kept', { timeout: 60_000 }, async () => {
    const { files, program, port, errorLog } = await serviceOnFiles();
    replacePair(files, pki.first.chain, pki.second.key);
    program.child.kill('SIGHUP');
    const refusals = await eventually('the refusal', () => errorLog().split('\n').filter((line) => line.includes('.ERROR: ')), (lines) => lines.length > 0);
    assert.match(refusals[0]!, new RegExp(
      `app\\.ERROR: TLS certificate not reloaded on SIGHUP: TLS_KEY ${files.key} is not the key of the TLS_CERT certificate \\(serial ${pki.first.serial}\\); ` +
      `the previous one \\(serial ${pki.first.serial}\\) stays in use$`,
    ));
    // The pair in use still signs new handshakes, and the process goes on.
    assert.equal(await servedSerial(port, pki.ca), pki.first.serial);
    assert.equal((await curl(['--cacert', pki.ca, `https://localhost:${port}/`])).status, 200);
    assert.equal(program.child.exitCode, null);
    // The file watch sees the same files change (a poll a second, read half a second after):
    // given the time to, it says nothing more about a pair already refused.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.deepEqual(await stopService(program), [0, null]);
    const lines = errorLog().split('\n').filter((line) => line.includes('.ERROR: '));
    const afterSighup = lines.slice(lines.findIndex((line) => line.includes(' on SIGHUP: ')) + 1);
    assert.equal(lines.filter((line) => line.includes(' on SIGHUP: ')).length, 1, lines.join('\n'));
    assert.deepEqual(afterSighup, [], 'the same refusal said again after the SIGHUP');
  });

  it('is picked up by itself, without a signal, within 5 s of its files being replaced', { timeout: 60_000 }, async (t) => {
    const { files, program, port, errorLog } = await serviceOnFiles();
    replacePair(files, pki.second.chain, pki.second.key);
    const replaced = Date.now();
    await eventually('the second serial', () => servedSerial(port, pki.ca), (serial) => serial === pki.second.serial, 5_000);
    t.diagnostic(`replaced files served ${Date.now() - replaced} ms later, without a signal`);
    assert.deepEqual(await stopService(program), [0, null]);
    assert.match(errorLog(), new RegExp(`app\\.INFO: TLS certificate reloaded \\(serial ${pki.first.serial} -> ${pki.second.serial}, .*\\) on file change`));
    assert.doesNotMatch(errorLog(), /\.ERROR: /);
  });
});

/** The status of a GET on an open h2 session. */
function h2Status(session: http2.ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, accept: 'application/json' });
    stream.on('response', (headers) => resolve(Number(headers[':status'])));
    stream.on('error', reject);
    stream.resume();
    stream.setTimeout(10_000, () => stream.close(http2.constants.NGHTTP2_CANCEL));
  });
}

describe('h2load', () => {
  it('gets 20,000 answers over h2 on 10 connections, and the access log holds each one', { timeout: 120_000 }, async (t) => {
    const loaded = await startHttpsService(pairFiles(pki, pki.first));
    // h2load verifies no certificate (it has no option to trust a CA): the name is for SNI.
    const result = await runProgram('h2load', ['-n', '20000', '-c', '10', '-m', '10', `https://localhost:${loaded.port}/nope`]);
    const out = result.stdout.toString('utf8');
    assert.equal(result.code, 0, `${out}\n${result.stderr}`);
    assert.match(out, /^Application protocol: h2$/m);
    const requests = /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout$/m.exec(out);
    assert.ok(requests, out);
    // h2load counts an answer of 400 or more as "failed"; "errored" is a request that got no answer.
    const [total, started, done, succeeded, failed, errored, timedOut] = requests.slice(1).map(Number);
    assert.deepEqual({ total, started, done, succeeded, failed, errored, timedOut }, { total: 20_000, started: 20_000, done: 20_000, succeeded: 0, failed: 20_000, errored: 0, timedOut: 0 });
    assert.match(out, /^status codes: 0 2xx, 0 3xx, 20000 4xx, 0 5xx$/m);
    t.diagnostic(/^finished in .*$/m.exec(out)?.[0] ?? 'no "finished" line');

    const logDir = join(loaded.program.varDir, 'log');
    // The access log is written in batches: wait for all of it, then stop (which flushes) and count again.
    await eventually('20,000 access lines', () => readAccessLog(logDir).length, (count) => count >= 20_000, 30_000);
    assert.deepEqual(await stopService(loaded.program), [0, null]);
    const lines = readAccessLog(logDir);
    assert.equal(lines.length, 20_000);
    const notFound = lines.filter((line) => line.target === '/nope' && line.status === 404 && line.method === 'GET' && line.completed === true);
    assert.equal(notFound.length, 20_000);
    assert.equal(new Set(lines.map((line) => line.request_id)).size, 20_000, 'a request id seen twice');
    assert.match(String(lines[0]!.user_agent), /^h2load /);
  });
});

/**
 * SIGHUP on the server program (docs/deployment.md, "HTTPS without a proxy"): it reads TLS_CERT and TLS_KEY
 * again and never ends the service; with WORKERS=2, the primary passes it to every worker.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { send } from './helpers/http.js';
import { handshake, requestHttp1, TLS_FIXTURES } from './helpers/https.js';
import { readErrorLog } from './helpers/log-files.js';
import { runServerProgram } from './helpers/service.js';

const serialOf = (file: string) => new X509Certificate(readFileSync(join(TLS_FIXTURES, file))).serialNumber;

/** A directory holding the `localhost` pair as cert.pem and key.pem, removed after the file. */
function pairDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tls-signal-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(TLS_FIXTURES, 'localhost-chain.pem'), join(dir, 'cert.pem'));
  copyFileSync(join(TLS_FIXTURES, 'localhost.key'), join(dir, 'key.pem'));
  return dir;
}

/** Puts the renewed pair in place as an ACME client does: new files renamed over the old. */
function renew(dir: string): void {
  copyFileSync(join(TLS_FIXTURES, 'rotated-chain.pem'), join(dir, 'cert.new'));
  copyFileSync(join(TLS_FIXTURES, 'rotated.key'), join(dir, 'key.new'));
  renameSync(join(dir, 'cert.new'), join(dir, 'cert.pem'));
  renameSync(join(dir, 'key.new'), join(dir, 'key.pem'));
}

describe('SIGHUP', () => {
  it('leaves a plain-HTTP service running, saying there is nothing to reload', { timeout: 60_000 }, async () => {
    const program = runServerProgram({ APP_ENV: 'prod', APP_DEBUG: '0' });
    const url = await program.listening;
    program.child.kill('SIGHUP');
    await eventually('the SIGHUP line', () => readErrorLog(join(program.varDir, 'log')), (log) => log.includes('app.INFO: SIGHUP: nothing to reload (TLS_CERT is not set)'));
    assert.equal((await send(url, 'GET', '/')).status, 200);
    program.child.kill('SIGTERM');
    assert.deepEqual(await program.exited, [0, null]);
  });

  it('serves the renewed certificate from the next handshake on, and the service goes on', { timeout: 60_000 }, async () => {
    const dir = pairDir();
    const program = runServerProgram({ APP_ENV: 'prod', APP_DEBUG: '0', TLS_CERT: join(dir, 'cert.pem'), TLS_KEY: join(dir, 'key.pem') });
    const url = await program.listening;
    assert.match(url, /^https:\/\//);
    assert.equal((await handshake(url)).serial, serialOf('localhost.pem'));
    renew(dir);
    program.child.kill('SIGHUP');
    await eventually('the renewed serial', async () => (await handshake(url)).serial, (serial) => serial === serialOf('rotated.pem'));
    assert.equal((await requestHttp1(url, 'GET', '/')).status, 200);
    const line = /app\.INFO: TLS certificate reloaded \(serial 1001 -> 1002, localhost, valid until 2125-01-01T00:00:00\.000Z\) on SIGHUP/;
    await eventually('the reload line', () => readErrorLog(join(program.varDir, 'log')), (log) => line.test(log));
    program.child.kill('SIGTERM');
    assert.deepEqual(await program.exited, [0, null]);
  });

  it('reaches every worker of a cluster', { timeout: 60_000 }, async () => {
    const dir = pairDir();
    const program = runServerProgram({ APP_ENV: 'prod', APP_DEBUG: '0', WORKERS: '2', TLS_CERT: join(dir, 'cert.pem'), TLS_KEY: join(dir, 'key.pem') });
    const url = await program.listening;
    renew(dir);
    program.child.kill('SIGHUP');
    // A worker still starting when the signal comes gets it once it listens: each worker serves
    // the renewed pair (8 handshakes in a row, dealt round robin), none dies of it.
    const eightSerials = async () => Promise.all(Array.from({ length: 8 }, async () => (await handshake(url)).serial));
    await eventually('the renewed serial from every worker', eightSerials, (serials) => serials.every((serial) => serial === serialOf('rotated.pem')));
    const reloaded = /app\.INFO: TLS certificate reloaded \(serial 1001 -> 1002[^\n]* on SIGHUP/;
    await eventually('a reload line', () => readErrorLog(join(program.varDir, 'log')), (log) => reloaded.test(log));
    assert.doesNotMatch(readErrorLog(join(program.varDir, 'log')), /Worker \d+ exited/);
    program.child.kill('SIGTERM');
    assert.deepEqual(await program.exited, [0, null]);
  });
});

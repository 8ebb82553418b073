/**
 * TLS_CERT, TLS_KEY, TLS_KEY_PASSPHRASE, HTTP2, HSTS_MAX_AGE and REDIRECT_PORT as start-up reads
 * them: every problem of the pair named in the one line of bad settings, with the others.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../src/config/index.js';

const FIXTURES = resolve('test/fixtures/tls');
const pair = { TLS_CERT: `${FIXTURES}/localhost-chain.pem`, TLS_KEY: `${FIXTURES}/localhost.key` };

function settingsLine(vars: Record<string, string>): string {
  try {
    parseConfig({ APP_ENV: 'prod', ...vars }, '/srv/app');
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail(`no ConfigError for ${JSON.stringify(vars)}`);
}

describe('TLS settings', () => {
  it('are off by default: plain HTTP', () => {
    assert.equal(parseConfig({ APP_ENV: 'prod' }, '/srv/app').tls, undefined);
  });

  it('read the pair, with h2 on, a year of HSTS and no redirect by default; paths resolve against the directory', () => {
    const config = parseConfig({ APP_ENV: 'prod', TLS_CERT: 'test/fixtures/tls/localhost-chain.pem', TLS_KEY: 'test/fixtures/tls/localhost.key' }, process.cwd());
    assert.deepEqual(config.tls, { certPath: pair.TLS_CERT, keyPath: pair.TLS_KEY, http2: true, hstsMaxAge: 31_536_000, redirectPort: undefined });
  });

  it('take HTTP2, HSTS_MAX_AGE and REDIRECT_PORT', () => {
    const config = parseConfig({ APP_ENV: 'prod', ...pair, HTTP2: '0', HSTS_MAX_AGE: '0', REDIRECT_PORT: '8080' }, '/');
    assert.deepEqual(config.tls, { certPath: pair.TLS_CERT, keyPath: pair.TLS_KEY, http2: false, hstsMaxAge: 0, redirectPort: 8080 });
  });

  it('need both files', () => {
    assert.equal(settingsLine({ TLS_CERT: pair.TLS_CERT }), 'Invalid setting TLS_KEY: is not set, and TLS_CERT is: HTTPS needs both');
    assert.equal(settingsLine({ TLS_KEY: pair.TLS_KEY }), 'Invalid setting TLS_CERT: is not set, and TLS_KEY is: HTTPS needs both');
  });

  it('name every problem of the pair in the one line, beside other bad settings', () => {
    const line = settingsLine({ PORT: 'x', TLS_CERT: '/nope/cert.pem', TLS_KEY: '/nope/key.pem', HSTS_MAX_AGE: '-1' });
    assert.equal(line, 'Invalid settings (4): PORT: "x" is not a whole number; HSTS_MAX_AGE: "-1" is not a whole number; TLS_CERT: /nope/cert.pem: no such file; TLS_KEY: /nope/key.pem: no such file');
  });

  it('refuse an expired certificate, a key that does not match, and an encrypted key without its passphrase', () => {
    assert.match(settingsLine({ ...pair, TLS_CERT: `${FIXTURES}/expired-chain.pem` }), /^Invalid setting TLS_CERT: certificate \(serial 1003\) expired on 2021-01-01T00:00:00\.000Z$/);
    assert.match(settingsLine({ ...pair, TLS_KEY: `${FIXTURES}/stranger.key` }), /^Invalid setting TLS_KEY: \S+stranger\.key is not the key of the TLS_CERT certificate \(serial 1001\)$/);
    assert.equal(settingsLine({ ...pair, TLS_KEY: `${FIXTURES}/localhost-encrypted.key` }), 'Invalid setting TLS_KEY_PASSPHRASE: TLS_KEY is encrypted and TLS_KEY_PASSPHRASE is not set');
    const wrong = settingsLine({ ...pair, TLS_KEY: `${FIXTURES}/localhost-encrypted.key`, TLS_KEY_PASSPHRASE: 'battery staple' });
    assert.equal(wrong, 'Invalid setting TLS_KEY_PASSPHRASE: does not open TLS_KEY');
    assert.ok(!wrong.includes('battery staple'));
  });

  it('refuse REDIRECT_PORT without TLS, or on PORT itself', () => {
    assert.equal(settingsLine({ REDIRECT_PORT: '80' }), 'Invalid setting REDIRECT_PORT: redirects to HTTPS, which needs TLS_CERT and TLS_KEY');
    assert.equal(settingsLine({ ...pair, PORT: '8443', REDIRECT_PORT: '8443' }), 'Invalid setting REDIRECT_PORT: is PORT (8443): the redirect needs a port of its own');
  });
});

import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSecureContext } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { EXPIRY_WARNING_DAYS, MAX_PEM_BYTES, readTlsCredentials, type TlsFiles, type TlsReading } from '../../src/tls/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
/** Inside every good fixture's validity (2025-01-01 to 2125-01-01). */
const NOW = Date.UTC(2030, 0, 1);
const DAY_MS = 24 * 60 * 60 * 1000;
/** notAfter of the 100-year leaves (localhost, rotated, no-common-name). */
const NOT_AFTER = Date.UTC(2125, 0, 1);
const PASSPHRASE = 'correct horse';

const root = mkdtempSync(join(tmpdir(), 'tls-credentials-'));
after(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const fresh = (name: string) => join(root, `${++count}-${name}`);

function files(cert: string, key: string, passphrase = ''): TlsFiles {
  return { certPath: cert, keyPath: key, passphrase };
}

/** A file under the temp dir holding `text`. */
function written(name: string, text: string | Buffer): string {
  const path = fresh(name);
  writeFileSync(path, text);
  return path;
}

function credentialsOf(reading: TlsReading) {
  assert.ok(reading.ok, `refused: ${reading.ok ? '' : JSON.stringify(reading.problems)}`);
  return reading;
}

function problemsOf(reading: TlsReading) {
  assert.ok(!reading.ok, 'the pair was accepted');
  return reading.problems;
}

describe('readTlsCredentials', () => {
  describe('a good pair', () => {
    it('reports the leaf serial, its CN, its notAfter, the chain as read, and no warning', () => {
      const { credentials, warnings } = credentialsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost.key')), NOW));
      assert.equal(credentials.serial, '1001');
      assert.equal(credentials.subject, 'localhost');
      assert.equal(credentials.validTo.toISOString(), '2125-01-01T00:00:00.000Z');
      assert.equal(credentials.cert, readFileSync(fixture('localhost-chain.pem'), 'utf8'));
      assert.equal(credentials.key.type, 'private');
      assert.equal(credentials.key.asymmetricKeyType, 'ec');
      assert.deepEqual(warnings, []);
    });

    it('makes a secure context once the key is exported as PEM, an encrypted key included', () => {
      const { credentials } = credentialsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost-encrypted.key'), PASSPHRASE), NOW));
      assert.doesNotThrow(() => createSecureContext({ cert: credentials.cert, key: credentials.key.export({ type: 'pkcs8', format: 'pem' }) }));
    });

    it('takes the first certificate of the chain as the leaf', () => {
      const chainWithLeafLast = written('reversed.pem', readFileSync(fixture('ca.pem'), 'utf8') + readFileSync(fixture('localhost.pem'), 'utf8'));
      const problems = problemsOf(readTlsCredentials(files(chainWithLeafLast, fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${fixture('localhost.key')} is not the key of the TLS_CERT certificate (serial 1000)` }]);
    });

    it('reads a leaf without its chain', () => {
      assert.equal(credentialsOf(readTlsCredentials(files(fixture('localhost.pem'), fixture('localhost.key')), NOW)).credentials.serial, '1001');
    });

    it('names a leaf with no CN by its first subjectAltName', () => {
      const { credentials } = credentialsOf(readTlsCredentials(files(fixture('no-common-name-chain.pem'), fixture('localhost.key')), NOW));
      assert.equal(credentials.subject, 'localhost');
      assert.equal(credentials.serial, '1005');
    });

    it('opens an encrypted key with the right passphrase', () => {
      const { credentials } = credentialsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost-encrypted.key'), PASSPHRASE), NOW));
      assert.equal(credentials.serial, '1001');
      assert.equal(credentials.key.type, 'private');
    });

    it('opens a key in the older OpenSSL PEM encryption (Proc-Type: 4,ENCRYPTED) with the right passphrase only', () => {
      const key = createPrivateKey(readFileSync(fixture('localhost.key')));
      const legacy = written('legacy.key', key.export({ type: 'sec1', format: 'pem', cipher: 'aes-256-cbc', passphrase: PASSPHRASE }));
      assert.match(readFileSync(legacy, 'utf8'), /Proc-Type: 4,ENCRYPTED/);
      const cert = fixture('localhost-chain.pem');
      assert.equal(credentialsOf(readTlsCredentials(files(cert, legacy, PASSPHRASE), NOW)).credentials.serial, '1001');
      assert.deepEqual(problemsOf(readTlsCredentials(files(cert, legacy), NOW)).map((p) => p.message), ['TLS_KEY is encrypted and TLS_KEY_PASSPHRASE is not set']);
      assert.deepEqual(problemsOf(readTlsCredentials(files(cert, legacy, 'battery staple'), NOW)).map((p) => p.message), ['TLS_KEY_PASSPHRASE does not open TLS_KEY']);
    });

    it('accepts a passphrase given for a key that is not encrypted', () => {
      credentialsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost.key'), PASSPHRASE), NOW));
    });

    it('follows a symbolic link to each file', () => {
      const cert = fresh('cert-link');
      const key = fresh('key-link');
      symlinkSync(fixture('rotated-chain.pem'), cert);
      symlinkSync(fixture('rotated.key'), key);
      assert.equal(credentialsOf(readTlsCredentials(files(cert, key), NOW)).credentials.serial, '1002');
    });
  });

  describe('files that are not read', () => {
    it('says a missing certificate file is missing', () => {
      const missing = fresh('missing.pem');
      const problems = problemsOf(readTlsCredentials(files(missing, fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: `TLS_CERT ${missing}: no such file` }]);
    });

    it('says a missing key file is missing', () => {
      const missing = fresh('missing.key');
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), missing), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${missing}: no such file` }]);
    });

    it('reports both files missing as two problems', () => {
      const [cert, key] = [fresh('missing.pem'), fresh('missing.key')];
      assert.deepEqual(problemsOf(readTlsCredentials(files(cert, key), NOW)), [
        { setting: 'TLS_CERT', message: `TLS_CERT ${cert}: no such file` },
        { setting: 'TLS_KEY', message: `TLS_KEY ${key}: no such file` },
      ]);
    });

    it('refuses a directory', () => {
      const dir = fresh('dir');
      mkdirSync(dir);
      const problems = problemsOf(readTlsCredentials(files(dir, fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: `TLS_CERT ${dir}: a directory, not a regular file` }]);
    });

    it('refuses /dev/zero at once, through a link, reading nothing', () => {
      const link = fresh('zero.key');
      symlinkSync('/dev/zero', link);
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), link), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${link}: a character device, not a regular file` }]);
    });

    it(`reads a file of MAX_PEM_BYTES (${MAX_PEM_BYTES}) and refuses one byte more`, () => {
      const leaf = readFileSync(fixture('localhost-chain.pem'), 'utf8');
      const full = written('full.pem', leaf.padEnd(MAX_PEM_BYTES, '\n'));
      credentialsOf(readTlsCredentials(files(full, fixture('localhost.key')), NOW));
      const over = written('over.pem', leaf.padEnd(MAX_PEM_BYTES + 1, '\n'));
      assert.deepEqual(problemsOf(readTlsCredentials(files(over, fixture('localhost.key')), NOW)), [
        { setting: 'TLS_CERT', message: `TLS_CERT ${over}: larger than ${MAX_PEM_BYTES} bytes` },
      ]);
    });
  });

  describe('certificates that cannot be used', () => {
    it('refuses a certificate file with no PEM certificate (a key, given as TLS_CERT)', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost.key'), fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: `TLS_CERT ${fixture('localhost.key')} holds no PEM certificate` }]);
    });

    it('refuses a certificate that does not parse, naming which of the chain', () => {
      const broken = written('broken.pem', `${readFileSync(fixture('localhost.pem'), 'utf8')}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`);
      const problems = problemsOf(readTlsCredentials(files(broken, fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: `TLS_CERT ${broken}: certificate 2 of 2 cannot be parsed` }]);
    });

    it('refuses a certificate block with no end', () => {
      const cut = written('cut.pem', readFileSync(fixture('localhost.pem'), 'utf8').replace('-----END CERTIFICATE-----', ''));
      const problems = problemsOf(readTlsCredentials(files(cut, fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: `TLS_CERT ${cut}: certificate 1 of 1 cannot be parsed` }]);
    });

    it('refuses an expired leaf, saying when it expired', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('expired-chain.pem'), fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: 'TLS_CERT certificate (serial 1003) expired on 2021-01-01T00:00:00.000Z' }]);
    });

    it('refuses a leaf that is not valid yet, saying from when it is', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('not-yet-valid-chain.pem'), fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_CERT', message: 'TLS_CERT certificate (serial 1004) is not valid before 2100-01-01T00:00:00.000Z' }]);
    });

    it('takes notAfter as the last valid instant and refuses the millisecond after it', () => {
      const pair = files(fixture('localhost-chain.pem'), fixture('localhost.key'));
      credentialsOf(readTlsCredentials(pair, NOT_AFTER));
      assert.deepEqual(problemsOf(readTlsCredentials(pair, NOT_AFTER + 1)), [
        { setting: 'TLS_CERT', message: 'TLS_CERT certificate (serial 1001) expired on 2125-01-01T00:00:00.000Z' },
      ]);
    });

    it('takes notBefore as the first valid instant and refuses the millisecond before it', () => {
      const pair = files(fixture('localhost-chain.pem'), fixture('localhost.key'));
      const notBefore = Date.UTC(2025, 0, 1);
      credentialsOf(readTlsCredentials(pair, notBefore));
      assert.deepEqual(problemsOf(readTlsCredentials(pair, notBefore - 1)), [
        { setting: 'TLS_CERT', message: 'TLS_CERT certificate (serial 1001) is not valid before 2025-01-01T00:00:00.000Z' },
      ]);
    });
  });

  describe('keys that cannot be used', () => {
    it('refuses a key file that holds no private key', () => {
      const garbage = written('garbage.key', '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n');
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), garbage), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${garbage} holds no PEM private key that can be read` }]);
    });

    it('refuses a certificate given as TLS_KEY', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost.pem')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${fixture('localhost.pem')} holds no PEM private key that can be read` }]);
    });

    it('says an encrypted key needs TLS_KEY_PASSPHRASE', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost-encrypted.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY_PASSPHRASE', message: 'TLS_KEY is encrypted and TLS_KEY_PASSPHRASE is not set' }]);
    });

    it('says a wrong passphrase does not open the key', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost-encrypted.key'), 'battery staple'), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY_PASSPHRASE', message: 'TLS_KEY_PASSPHRASE does not open TLS_KEY' }]);
    });

    it('refuses a key that is not the leaf certificate\'s', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('stranger.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${fixture('stranger.key')} is not the key of the TLS_CERT certificate (serial 1001)` }]);
    });

    it('refuses the key of the previous certificate after a renewal of the certificate alone', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('rotated-chain.pem'), fixture('localhost.key')), NOW));
      assert.deepEqual(problems, [{ setting: 'TLS_KEY', message: `TLS_KEY ${fixture('localhost.key')} is not the key of the TLS_CERT certificate (serial 1002)` }]);
    });
  });

  describe('every problem at once', () => {
    it('reports an expired leaf and a key that is not its own together', () => {
      const problems = problemsOf(readTlsCredentials(files(fixture('expired-chain.pem'), fixture('stranger.key')), NOW));
      assert.deepEqual(problems.map((p) => p.message), [
        'TLS_CERT certificate (serial 1003) expired on 2021-01-01T00:00:00.000Z',
        `TLS_KEY ${fixture('stranger.key')} is not the key of the TLS_CERT certificate (serial 1003)`,
      ]);
    });

    it('reports a certificate file with no certificate and a wrong passphrase together', () => {
      const empty = written('empty.pem', '');
      const problems = problemsOf(readTlsCredentials(files(empty, fixture('localhost-encrypted.key'), 'battery staple'), NOW));
      assert.deepEqual(problems.map((p) => p.setting), ['TLS_CERT', 'TLS_KEY_PASSPHRASE']);
    });
  });

  describe('expiry warnings', () => {
    it(`warns of a leaf that expires in 10 days, within EXPIRY_WARNING_DAYS (${EXPIRY_WARNING_DAYS})`, () => {
      const { warnings } = credentialsOf(readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost.key')), NOT_AFTER - 10 * DAY_MS));
      assert.deepEqual(warnings, ['TLS_CERT expires on 2125-01-01T00:00:00.000Z, in 10 days']);
    });

    it('warns exactly EXPIRY_WARNING_DAYS before notAfter, and not a millisecond earlier', () => {
      const pair = files(fixture('localhost-chain.pem'), fixture('localhost.key'));
      const edge = NOT_AFTER - EXPIRY_WARNING_DAYS * DAY_MS;
      assert.deepEqual(credentialsOf(readTlsCredentials(pair, edge)).warnings, [`TLS_CERT expires on 2125-01-01T00:00:00.000Z, in ${EXPIRY_WARNING_DAYS} days`]);
      assert.deepEqual(credentialsOf(readTlsCredentials(pair, edge - 1)).warnings, []);
    });

    it('counts whole days left: 1 day, then less than a day', () => {
      const pair = files(fixture('localhost-chain.pem'), fixture('localhost.key'));
      assert.deepEqual(credentialsOf(readTlsCredentials(pair, NOT_AFTER - DAY_MS - 1)).warnings, ['TLS_CERT expires on 2125-01-01T00:00:00.000Z, in 1 day']);
      assert.deepEqual(credentialsOf(readTlsCredentials(pair, NOT_AFTER - DAY_MS + 1)).warnings, ['TLS_CERT expires on 2125-01-01T00:00:00.000Z, in less than a day']);
    });
  });

  describe('secrets', () => {
    it('never puts the passphrase or the key\'s text in a message or a warning', () => {
      const keyText = readFileSync(fixture('localhost-encrypted.key'), 'utf8');
      const strangerText = readFileSync(fixture('stranger.key'), 'utf8');
      const secretKey = written('secret.key', '-----BEGIN PRIVATE KEY-----\nU0VDUkVULUtFWS1URVhU\n-----END PRIVATE KEY-----\n');
      const readings = [
        readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost-encrypted.key'), 'battery staple'), NOW),
        readTlsCredentials(files(fixture('expired-chain.pem'), fixture('localhost-encrypted.key'), 'battery staple'), NOW),
        readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('stranger.key'), PASSPHRASE), NOW),
        readTlsCredentials(files(fixture('localhost.key'), secretKey, PASSPHRASE), NOW),
        readTlsCredentials(files(fixture('localhost-chain.pem'), fixture('localhost-encrypted.key'), PASSPHRASE), NOT_AFTER - DAY_MS),
      ];
      const lines = readings.flatMap((r) => (r.ok ? r.warnings : r.problems.map((p) => p.message)));
      assert.equal(lines.length, 7, JSON.stringify(lines));
      const secrets = ['battery staple', PASSPHRASE, 'U0VDUkVULUtFWS1URVhU', ...[keyText, strangerText].flatMap((text) => text.split('\n').filter((line) => line !== '' && !line.startsWith('-----')))];
      for (const line of lines) {
        for (const secret of secrets) assert.ok(!line.includes(secret), `${JSON.stringify(line)} holds a secret`);
      }
    });
  });
});

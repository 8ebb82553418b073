/**
 * JWT_PUBLIC_KEY as start-up reads it with POSTER_API=1: the service verifies tokens with that
 * file alone, so its problems are named in the one line of bad settings, with the others; the
 * private key and JWT_PASSPHRASE are the `jwt` command's, never the service's.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, MAX_JWT_KEY_BYTES, parseConfig } from '../../src/config/index.js';
import { writeKeyPair } from '../../src/jwt/index.js';

const dir = mkdtempSync(join(tmpdir(), 'jwt-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const pair = { secretKeyPath: join(dir, 'private.pem'), publicKeyPath: join(dir, 'public.pem') };
writeKeyPair(pair, 'jwt settings passphrase', false);
const publicPem = readFileSync(pair.publicKeyPath, 'utf8');

/** A file in the temporary directory holding `text`. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The settings line parseConfig throws for `vars` (prod, the poster API on, unless they say otherwise). */
function settingsLine(vars: Record<string, string>, projectDir = dir): string {
  try {
    parseConfig({ APP_ENV: 'prod', POSTER_API: '1', ...vars }, projectDir);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail(`no ConfigError for ${JSON.stringify(vars)}`);
}

describe('JWT_PUBLIC_KEY with POSTER_API=1', () => {
  it('is all the service needs outside dev: no private key file, no JWT_PASSPHRASE', () => {
    const config = parseConfig({ APP_ENV: 'prod', POSTER_API: '1', JWT_PUBLIC_KEY: pair.publicKeyPath, JWT_SECRET_KEY: join(dir, 'absent.pem') }, dir);
    assert.equal(config.jwt.publicKeyPath, pair.publicKeyPath);
    assert.equal(config.secrets.JWT_PASSPHRASE, '');
  });

  it('names a missing file in the one line, beside the other bad settings', () => {
    const line = settingsLine({ PORT: 'x', JWT_PUBLIC_KEY: '/nope/public.pem' });
    assert.equal(line, 'Invalid settings (2): PORT: "x" is not a whole number; JWT_PUBLIC_KEY: /nope/public.pem: no such file');
  });

  it('names the default file, resolved against the directory, when JWT_PUBLIC_KEY is unset', () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    assert.equal(settingsLine({}, empty), `Invalid setting JWT_PUBLIC_KEY: ${join(empty, 'config/jwt/public.pem')}: no such file`);
  });

  it('refuses what is not a regular file', () => {
    const folder = join(dir, 'a-folder.pem');
    mkdirSync(folder);
    assert.equal(settingsLine({ JWT_PUBLIC_KEY: folder }), `Invalid setting JWT_PUBLIC_KEY: ${folder}: a directory, not a regular file`);
  });

  it('reads a key file of exactly MAX_JWT_KEY_BYTES (16 KiB) and refuses one of a byte more', () => {
    assert.equal(MAX_JWT_KEY_BYTES, 16 * 1024);
    const exact = file('exact.pem', publicPem.padEnd(MAX_JWT_KEY_BYTES, '\n'));
    assert.equal(parseConfig({ APP_ENV: 'prod', POSTER_API: '1', JWT_PUBLIC_KEY: exact }, dir).jwt.publicKeyPath, exact);
    const over = file('over.pem', publicPem.padEnd(MAX_JWT_KEY_BYTES + 1, '\n'));
    assert.equal(settingsLine({ JWT_PUBLIC_KEY: over }), `Invalid setting JWT_PUBLIC_KEY: ${over}: larger than 16384 bytes`);
  });

  it('refuses a public key on another curve than P-521', () => {
    const p256 = file('p256.pem', generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString());
    assert.equal(settingsLine({ JWT_PUBLIC_KEY: p256 }), `Invalid setting JWT_PUBLIC_KEY: ${p256} is not a P-521 key, which ES512 needs`);
  });

  it('refuses a file that holds no public key in PEM', () => {
    const text = file('text.pem', 'not a key\n');
    assert.equal(settingsLine({ JWT_PUBLIC_KEY: text }), `Invalid setting JWT_PUBLIC_KEY: ${text} is not a public key in PEM`);
  });

  it('refuses a private key, encrypted or not, though node:crypto could take its public half', () => {
    const plain = file('plain-private.pem', generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    assert.equal(settingsLine({ JWT_PUBLIC_KEY: plain }), `Invalid setting JWT_PUBLIC_KEY: ${plain} holds a private key; it should hold the public key alone`);
    assert.equal(settingsLine({ JWT_PUBLIC_KEY: pair.secretKeyPath }), `Invalid setting JWT_PUBLIC_KEY: ${pair.secretKeyPath} holds a private key; it should hold the public key alone`);
  });
});

describe('JWT_PUBLIC_KEY without POSTER_API', () => {
  it('is not read: a service without the poster API needs no key', () => {
    const config = parseConfig({ APP_ENV: 'prod', JWT_PUBLIC_KEY: '/nope/public.pem' }, dir);
    assert.equal(config.jwt.publicKeyPath, '/nope/public.pem');
  });
});

describe('JWT_PUBLIC_KEY in dev', () => {
  it('is left to the service when neither key file exists: it generates the pair as it starts', () => {
    const fresh = mkdtempSync(join(dir, 'fresh-'));
    const config = parseConfig({ APP_ENV: 'dev', POSTER_API: '1' }, fresh);
    assert.equal(config.jwt.publicKeyPath, join(fresh, 'config/jwt/public.pem'));
  });

  it('is checked when the private key is there: half a pair is a mistake, not a pair to generate', () => {
    const half = mkdtempSync(join(dir, 'half-'));
    mkdirSync(join(half, 'config/jwt'), { recursive: true });
    writeFileSync(join(half, 'config/jwt/private.pem'), readFileSync(pair.secretKeyPath));
    assert.equal(settingsLine({ APP_ENV: 'dev' }, half), `Invalid setting JWT_PUBLIC_KEY: ${join(half, 'config/jwt/public.pem')}: no such file`);
  });

  it('is checked when it is there, the private key or not', () => {
    const text = file('dev-text.pem', 'not a key\n');
    assert.equal(settingsLine({ APP_ENV: 'dev', JWT_PUBLIC_KEY: text }), `Invalid setting JWT_PUBLIC_KEY: ${text} is not a public key in PEM`);
  });
});

/**
 * The poster API's key at start-up: the service verifies tokens with JWT_PUBLIC_KEY alone (no
 * private key, no JWT_PASSPHRASE), and in dev generates the pair when neither file exists.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { startServer } from '../../src/server.js';
import { problemOf, send } from '../helpers/http.js';
import { createMemoryLogger } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-keys-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'poster keys passphrase';
// The signing host's pair: the services below get a copy of public.pem alone.
const signer = { secretKeyPath: join(root, 'signer', 'private.pem'), publicKeyPath: join(root, 'signer', 'public.pem') };
writeKeyPair(signer, PASS, false);
const { privateKey } = loadKeyPair(signer, PASS);

/** A project directory holding `config/jwt/public.pem`, a copy of the signer's, and nothing else. */
function projectWithPublicKeyOnly(name: string): string {
  const project = mkdtempSync(join(root, name));
  mkdirSync(join(project, 'config/jwt'), { recursive: true });
  copyFileSync(signer.publicKeyPath, join(project, 'config/jwt/public.pem'));
  return project;
}

/** A poster request with a token of the signer's: a 422 for the empty spec means the token was accepted. */
async function postWithToken(url: string): Promise<number> {
  const token = await issueToken(privateKey, 'ana', 600, Date.now());
  const res = await send(url, 'POST', '/api/posters', { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, '{}');
  assert.notEqual(res.status, 401, res.body);
  return res.status;
}

describe('the poster API at start-up', () => {
  it('starts outside dev with the public key alone: no private key file, no JWT_PASSPHRASE', async () => {
    const project = projectWithPublicKeyOnly('prod-');
    const config = parseConfig({ APP_ENV: 'prod', POSTER_API: '1', PORT: '0', VAR_DIR: join(project, 'var'), PUBLIC_DIR: join(project, 'public') }, project);
    const said: string[] = [];
    const running = await startServer({ config, logger: createMemoryLogger(), say: (l) => said.push(l) });
    try {
      assert.equal(await postWithToken(running.url), 422);
      const unsigned = await send(running.url, 'POST', '/api/posters', { 'content-type': 'application/json' }, '{}');
      assert.equal(unsigned.status, 401);
      assert.equal(problemOf(unsigned).detail, 'This route needs a bearer token.');
    } finally {
      await running.stop();
    }
    assert.ok(!said.some((line) => line.startsWith('jwt:')), said.join('\n'));
  });

  it('starts in dev with the public key alone, generating nothing', async () => {
    const project = projectWithPublicKeyOnly('dev-public-');
    const config = parseConfig({ APP_ENV: 'dev', POSTER_API: '1', PORT: '0', VAR_DIR: join(project, 'var'), PUBLIC_DIR: join(project, 'public') }, project);
    const said: string[] = [];
    const running = await startServer({ config, logger: createMemoryLogger(), say: (l) => said.push(l) });
    try {
      assert.equal(await postWithToken(running.url), 422);
    } finally {
      await running.stop();
    }
    assert.ok(!existsSync(join(project, 'config/jwt/private.pem')), 'a private key was generated');
    assert.ok(!existsSync(join(project, '.env.local')), 'a passphrase was generated');
    assert.ok(!said.some((line) => line.startsWith('jwt:')), said.join('\n'));
  });

  it('generates a missing pair in dev and says so', async () => {
    const project = mkdtempSync(join(root, 'dev-'));
    const config = parseConfig({ APP_ENV: 'dev', POSTER_API: '1', PORT: '0', VAR_DIR: join(project, 'var') }, project);
    const said: string[] = [];
    const running = await startServer({ config, logger: createMemoryLogger(), say: (l) => said.push(l) });
    await running.stop();
    assert.match(readFileSync(join(project, '.env.local'), 'utf8'), /JWT_PASSPHRASE=/);
    assert.match(readFileSync(join(project, 'config/jwt/private.pem'), 'utf8'), /ENCRYPTED PRIVATE KEY/);
    assert.equal(said.length, 2);
    assert.equal(said[0], 'jwt: generated a passphrase for the key pair and saved it as JWT_PASSPHRASE in .env.local');
    assert.equal(said[1], `jwt: generated a P-521 key pair in ${join(project, 'config/jwt/private.pem')} and ${join(project, 'config/jwt/public.pem')}`);
  });

  it('refuses to start outside dev without the public key: the settings name JWT_PUBLIC_KEY', () => {
    const project = mkdtempSync(join(root, 'prod-none-'));
    assert.throws(() => parseConfig({ APP_ENV: 'prod', POSTER_API: '1', PORT: '0', JWT_PASSPHRASE: 'secret-pass' }, project), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.message, `Invalid setting JWT_PUBLIC_KEY: ${join(project, 'config/jwt/public.pem')}: no such file`);
      return true;
    });
  });

  it('stops the start naming JWT_PUBLIC_KEY when the file went away after the settings were checked', async () => {
    const project = projectWithPublicKeyOnly('prod-gone-');
    const config = parseConfig({ APP_ENV: 'prod', POSTER_API: '1', PORT: '0', VAR_DIR: join(project, 'var') }, project);
    rmSync(join(project, 'config/jwt/public.pem'));
    await assert.rejects(startServer({ config, logger: createMemoryLogger() }), {
      name: 'JwtKeyError',
      message: `JWT_PUBLIC_KEY ${join(project, 'config/jwt/public.pem')}: no such file`,
    });
  });
});

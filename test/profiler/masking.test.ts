/**
 * Black-box: what the profiler's pages show of a request that carries a configured secret in a
 * member nested inside a problem document (docs/http.md, "Dev profiler": masked wherever operators read it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { send } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const SECRET = 'nested-secret-4711';
const PASS = 'profiler masking passphrase';
const root = mkdtempSync(join(tmpdir(), 'profiler-masking-'));
after(() => rmSync(root, { recursive: true, force: true }));
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const dev = await startTestService({
  APP_ENV: 'dev',
  APP_DEBUG: '1',
  APP_SECRET: SECRET,
  POSTER_API: '1',
  PUBLIC_DIR: join(root, 'public'),
  JWT_SECRET_KEY: keyPaths.secretKeyPath,
  JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
  JWT_PASSPHRASE: PASS,
});
const bearer = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'ana', 3600, Date.now());

describe('the profiler and a secret nested in a problem member', () => {
  it('shows ****** for a secret in a 422\'s errors[].pointer, on the panel and the exception page, never the secret', async () => {
    const res = await send(dev.url, 'POST', '/api/posters', { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, JSON.stringify({ title: 'x', [SECRET]: 1 }));
    assert.equal(res.status, 422, res.body);
    // The client is answered with what it sent (docs/http.md, "Routing and errors"): the oracle would be the mask.
    assert.ok(res.body.includes(`"pointer":"/${SECRET}"`), res.body);
    const token = String(res.headers['x-debug-token']);
    for (const target of [`/_profiler/${token}?panel=exception`, `/_profiler/${token}/exception`]) {
      const page = await send(dev.url, 'GET', target);
      assert.equal(page.status, 200, target);
      assert.ok(page.body.includes('&quot;pointer&quot;:&quot;/******&quot;'), `${target}: ${page.body.slice(page.body.indexOf('<h2>Problem'), page.body.indexOf('<h2>Problem') + 800)}`);
      assert.ok(!page.body.includes(SECRET), `${target} shows the secret`);
    }
  });
});

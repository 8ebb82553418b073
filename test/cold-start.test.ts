import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../src/jwt.js';
import { send } from './helpers/http.js';
import { runServerProgram } from './helpers/service.js';
import { serviceTarget } from './helpers/target.js';

// The modules as SERVICE_TARGET names them: src/x.ts, or dist/x.js as production loads them.
const { name: tree, moduleFile } = serviceTarget();

const root = mkdtempSync(join(tmpdir(), 'cold-start-'));
after(() => rmSync(root, { recursive: true, force: true }));

// A resolve hook that appends every module URL the program resolves (static and dynamic
// imports alike, its dependencies' too) to MODULE_LOG. It runs at run time, so it sees what is
// really loaded, whatever the shape of the import graph.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.MODULE_LOG, resolved.url + '\\n');
  return resolved;
}`;
const REGISTER = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;
const RECORD_MODULES = ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`];

/** Runs the service with the hook; `loaded()` lists the module URLs resolved so far. */
function runRecorded(env: Record<string, string>) {
  const moduleLog = join(mkdtempSync(join(root, 'modules-')), 'modules.txt');
  const run = runServerProgram({ ...env, MODULE_LOG: moduleLog }, RECORD_MODULES);
  after(() => run.child.kill());
  const loaded = () => readFileSync(moduleLog, 'utf8').split('\n').filter(Boolean);
  return { run, loaded };
}

describe('cold start', () => {
  it('loads neither jose nor the poster encoder, pool or JWT code up to the first GET / without the poster API', { timeout: 60_000 }, async () => {
    const { run, loaded } = runRecorded({ POSTER_API: '0' });
    const url = await run.listening;
    assert.equal((await send(url, 'GET', '/')).status, 200);
    const urls = loaded();
    // The hook saw the program itself, so an empty list cannot pass for a lean one.
    assert.ok(urls.some((u) => u.endsWith(`/${moduleFile('server')}`)), `the hook recorded ${urls.length} modules`);
    const lazy = [`${tree}/posterEncoder/`, `${tree}/poster/`, moduleFile('jwt'), `${tree}/jwt/`, moduleFile('static'), moduleFile('static/plan')];
    for (const needle of ['/node_modules/jose/', ...lazy.map((path) => `/${path}`), 'node:crypto']) {
      const found = urls.filter((u) => u.includes(needle));
      assert.deepEqual(found, [], `${needle} was loaded`);
    }
  });

  it('loads the static file modules on the first static request, and serves it', { timeout: 60_000 }, async () => {
    const publicDir = mkdtempSync(join(root, 'public-'));
    writeFileSync(join(publicDir, 'first.txt'), 'first file\n');
    const { run, loaded } = runRecorded({ PUBLIC_DIR: publicDir });
    const url = await run.listening;
    const staticModule = `/${moduleFile('static')}`;
    assert.deepEqual(loaded().filter((u) => u.endsWith(staticModule)), [], 'static.ts was loaded before any static request');
    const [first, second] = await Promise.all([send(url, 'GET', '/static/first.txt'), send(url, 'GET', '/static/missing.txt')]);
    assert.equal(first.status, 200);
    assert.equal(first.body, 'first file\n');
    assert.equal(second.status, 404);
    assert.equal(loaded().filter((u) => u.endsWith(staticModule)).length, 1, 'static.ts was loaded once');
  });

  it('answers the first protected request, with jose loaded on demand, when it is the first thing asked', { timeout: 60_000 }, async () => {
    const PASS = 'cold start passphrase';
    const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
    writeKeyPair(keyPaths, PASS, false);
    const token = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'ana', 3600, Date.now());
    const { run, loaded } = runRecorded({
      POSTER_API: '1',
      PUBLIC_DIR: join(root, 'public'),
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
    });
    const url = await run.listening;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const res = await send(url, 'POST', '/api/posters', headers, JSON.stringify({ title: 'First' }));
    assert.equal(res.status, 201, res.body);
    const urls = loaded();
    assert.ok(urls.some((u) => u.includes('/node_modules/jose/')), 'jose was never loaded');
  });
});

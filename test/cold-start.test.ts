import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../src/jwt/index.js';
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
  it('loads neither jose nor the poster encoder, pool or JWT code, nor metrics or the operator\'s listener, up to the first GET / without the poster API or ADMIN_PORT', { timeout: 60_000 }, async () => {
    const { run, loaded } = runRecorded({ POSTER_API: '0' });
    const url = await run.listening;
    assert.equal((await send(url, 'GET', '/')).status, 200);
    const urls = loaded();
    // The hook saw the program itself, so an empty list cannot pass for a lean one.
    assert.ok(urls.some((u) => u.endsWith(`/${moduleFile('server')}`)), `the hook recorded ${urls.length} modules`);
    // Without ADMIN_PORT the metrics and the operator's listener are not loaded either.
    const lazy = [
      `${tree}/render/`, `${tree}/jpeg/`, `${tree}/poster/`, `${tree}/jwt/`,
      `${tree}/metrics/`, ...['listener', 'readiness', 'cluster-link', 'cluster-admin', 'process-admin', 'service-metrics'].map((name) => moduleFile(`ops/${name}`)),
    ];
    for (const needle of ['/node_modules/jose/', ...lazy.map((path) => `/${path}`), 'node:crypto']) {
      const found = urls.filter((u) => u.includes(needle));
      assert.deepEqual(found, [], `${needle} was loaded`);
    }
  });

  it('loads neither the access log nor the request watch behind it with ACCESS_LOG=0 and no ADMIN_PORT', { timeout: 60_000 }, async () => {
    const { run, loaded } = runRecorded({ ACCESS_LOG: '0' });
    const url = await run.listening;
    assert.equal((await send(url, 'GET', '/')).status, 200);
    const urls = loaded();
    assert.ok(urls.some((u) => u.endsWith(`/${moduleFile('server')}`)), `the hook recorded ${urls.length} modules`);
    for (const needle of [`/${tree}/log/access-log`, `/${tree}/log/access-format`, `/${moduleFile('ops/request-outcome')}`, 'node:perf_hooks']) {
      const found = urls.filter((u) => u.includes(needle));
      assert.deepEqual(found, [], `${needle} was loaded`);
    }
  });

  it('loads the access log and its request watch before it listens when ACCESS_LOG is on, and logs the first request', { timeout: 60_000 }, async () => {
    const { run, loaded } = runRecorded({ ACCESS_LOG: '1' });
    const url = await run.listening;
    const atListening = loaded();
    for (const file of [moduleFile('log/access-log'), moduleFile('ops/request-outcome')]) {
      assert.equal(atListening.filter((u) => u.endsWith(`/${file}`)).length, 1, `${file} was not loaded before the service listened`);
    }
    assert.equal((await send(url, 'GET', '/')).status, 200);
    // The line is queued, then written within the sink's gathering delay.
    const logDir = join(run.varDir, 'log');
    let lines: string[] = [];
    for (let tries = 0; lines.length === 0 && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      lines = readdirSync(logDir)
        .filter((name) => name.startsWith('test-access-'))
        .flatMap((name) => readFileSync(join(logDir, name), 'utf8').split('\n').filter(Boolean));
    }
    assert.equal(lines.length, 1, 'one access line for the first request');
    assert.equal(JSON.parse(lines[0]!).status, 200);
  });

  // Node keeps a failed import for the life of the process: loaded before the service listens, a
  // failure stops the start rather than every static request until a restart.
  it('loads the static file modules once, before it listens, and serves the first static request', { timeout: 60_000 }, async () => {
    const publicDir = mkdtempSync(join(root, 'public-'));
    writeFileSync(join(publicDir, 'first.txt'), 'first file\n');
    const { run, loaded } = runRecorded({ PUBLIC_DIR: publicDir });
    const url = await run.listening;
    const staticModule = `/${moduleFile('static/serve')}`;
    assert.equal(loaded().filter((u) => u.endsWith(staticModule)).length, 1, 'static.ts was not loaded before the service listened');
    const [first, second] = await Promise.all([send(url, 'GET', '/static/first.txt'), send(url, 'GET', '/static/missing.txt')]);
    assert.equal(first.status, 200);
    assert.equal(first.body, 'first file\n');
    assert.equal(second.status, 404);
    assert.equal(loaded().filter((u) => u.endsWith(staticModule)).length, 1, 'static.ts was loaded once');
  });

  it('answers the first protected request, with jose loaded before it listens, when it is the first thing asked', { timeout: 60_000 }, async () => {
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
    assert.ok(loaded().some((u) => u.includes('/node_modules/jose/')), 'jose was not loaded before the service listened');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const res = await send(url, 'POST', '/api/posters', headers, JSON.stringify({ title: 'First' }));
    assert.equal(res.status, 201, res.body);
  });
});

// A load hook that fails the first load of a module whose URL contains `needle`, as a shortage of
// descriptors does: Node's loader then keeps that failure for the life of the process, as it
// keeps a real EMFILE.
function failFirstLoadOf(needle: string): string[] {
  const hooks = `let failed = false;
export async function load(url, context, next) {
  if (!failed && url.includes(${JSON.stringify(needle)})) {
    failed = true;
    throw Object.assign(new Error('EMFILE: too many open files, open ' + url), { code: 'EMFILE' });
  }
  return next(url, context);
}`;
  const register = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(register)}`];
}

/** `listening on <url>` or `exit <code>`, whichever the program does first. */
function firstOutcome(run: ReturnType<typeof runServerProgram>): Promise<string> {
  return Promise.race([run.listening.then((url) => `listening on ${url}`), run.exited.then(([code]) => `exit ${code}`)]);
}

describe('a module that fails to load', () => {
  it('stops the start with one line and exit code 1 when jose fails, rather than failing every protected request until a restart', { timeout: 60_000 }, async () => {
    const PASS = 'failed import passphrase';
    const keyPaths = { secretKeyPath: join(root, 'jwt-failed', 'private.pem'), publicKeyPath: join(root, 'jwt-failed', 'public.pem') };
    writeKeyPair(keyPaths, PASS, false);
    const run = runServerProgram({
      POSTER_API: '1',
      PUBLIC_DIR: join(root, 'public'),
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
    }, failFirstLoadOf('/node_modules/jose/'));
    after(() => run.child.kill());
    assert.equal(await firstOutcome(run), 'exit 1', run.output().stderr);
    assert.match(run.output().stderr, /^cannot start: EMFILE: too many open files, open file:\/\/\S+\/node_modules\/jose\/\S+\n$/);
  });

  it('stops the start with exit code 1 when static file serving fails, rather than answering every static request with a 500', { timeout: 60_000 }, async () => {
    const planModule = `/${moduleFile('static/plan')}`;
    const run = runServerProgram({ PUBLIC_DIR: join(root, 'public') }, failFirstLoadOf(planModule));
    after(() => run.child.kill());
    assert.equal(await firstOutcome(run), 'exit 1', run.output().stderr);
    assert.ok(run.output().stderr.includes(`EMFILE: too many open files, open file://`), run.output().stderr);
    assert.ok(run.output().stderr.includes(`${planModule}\n`), run.output().stderr);
  });
});

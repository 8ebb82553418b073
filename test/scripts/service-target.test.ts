import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freshCheckout, ROOT } from '../helpers/checkout.js';
import { send } from '../helpers/http.js';
import { createMemoryLogger, runServerProgram } from '../helpers/service.js';
import { serviceTarget } from '../helpers/target.js';

/** A fresh checkout built as `npm run build` builds it. */
function builtCheckout(): string {
  const checkout = freshCheckout();
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: checkout, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stdout + build.stderr);
  return checkout;
}

describe('SERVICE_TARGET', () => {
  it('runs src/server.ts through tsx when unset, so npm test needs no build', () => {
    assert.equal(serviceTarget({}).serverEntry, join(ROOT, 'src', 'server.ts'));
    assert.equal(serviceTarget({ SERVICE_TARGET: 'src' }).moduleFile('static/plan'), 'src/static/plan.ts');
  });

  it('runs the built dist/server.js with SERVICE_TARGET=dist, as a program and in this process', { timeout: 180_000 }, async () => {
    const checkout = builtCheckout();
    const target = serviceTarget({ SERVICE_TARGET: 'dist' }, checkout);
    assert.equal(target.serverEntry, join(checkout, 'dist', 'server.js'));
    assert.equal(target.moduleFile('static/plan'), 'dist/static/plan.js');
    const program = runServerProgram({}, [], target.serverEntry);
    assert.equal((await send(await program.listening, 'GET', '/')).status, 200);
    program.child.kill('SIGTERM');
    assert.equal((await program.exited)[0], 0);

    const { startServer, parseConfig } = await target.loadModules();
    const config = parseConfig({ APP_ENV: 'test', HOST: '127.0.0.1', PORT: '0', VAR_DIR: join(program.varDir, 'in-process') }, checkout);
    const running = await startServer({ config, logger: createMemoryLogger() });
    try {
      assert.equal((await send(running.url, 'GET', '/')).status, 200);
    } finally {
      await running.stop();
    }

    // A change to the sources after the build: the tests would hit yesterday's code.
    const now = Date.now() / 1000 + 5;
    utimesSync(join(checkout, 'src', 'app', 'app.ts'), now, now);
    assert.throws(() => serviceTarget({ SERVICE_TARGET: 'dist' }, checkout), {
      message: 'SERVICE_TARGET=dist: dist/ is older than src/ or the TypeScript settings: run `npm run build` first',
    });
  });

  it('refuses SERVICE_TARGET=dist without a build, saying to build', () => {
    assert.throws(() => serviceTarget({ SERVICE_TARGET: 'dist' }, freshCheckout()), {
      message: 'SERVICE_TARGET=dist: dist/server.js is missing: run `npm run build` first',
    });
  });

  it('refuses a target it does not know', () => {
    assert.throws(() => serviceTarget({ SERVICE_TARGET: 'build' }), { message: 'SERVICE_TARGET must be src or dist, not "build"' });
  });
});

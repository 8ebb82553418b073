import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createRenderPool } from '../src/poster/pool.js';
import { validatePosterSpec } from '../src/render/spec.js';

const spec = (title: string) => {
  const checked = validatePosterSpec({ title });
  assert.ok(checked.ok);
  return checked.value;
};

describe('the render pool at start', () => {
  // The pool's workers never hold the process open (a server does); here a timer stands in.
  const keepAlive = setInterval(() => {}, 1000);
  after(() => clearInterval(keepAlive));

  it('starts no worker until the first render', async () => {
    const pool = createRenderPool({ size: 2 });
    after(() => pool.close());
    assert.equal(pool.workersStarted, 0);
    await pool.render(spec('first'));
    assert.equal(pool.workersStarted, 1);
  });

  it('starts a worker per job in flight up to its size, then reuses them', async () => {
    const pool = createRenderPool({ size: 2, maxQueued: 4 });
    after(() => pool.close());
    await Promise.all([pool.render(spec('a')), pool.render(spec('b')), pool.render(spec('c'))]);
    assert.equal(pool.workersStarted, 2);
    await pool.render(spec('d'));
    assert.equal(pool.workersStarted, 2);
  });
});

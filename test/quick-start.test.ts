/**
 * README's quick start, as a new user runs it: its shell block as it stands, pasted into bash on
 * a fresh clone (no node_modules, no dist/, no keys), must bring a poster back from the API.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freshCheckout } from './helpers/checkout.js';
import { blockUnder, README } from './helpers/docs.js';
import { runShellBlock, sof0Size } from './helpers/shell-block.js';

describe("README's quick start", () => {
  it('brings a 1125x2436 JPEG poster back from the API on a fresh clone, and stops the service', { timeout: 300_000 }, async () => {
    const checkout = freshCheckout({ installed: false });
    const { code } = blockUnder(README, 'Quick start: a poster from the API', 'sh');
    // PORT=0: the block reads the address from the listening line, so any free port does; npm ci
    // takes the locked packages from npm's cache when it holds them.
    const run = await runShellBlock(code, checkout, { PORT: '0', npm_config_prefer_offline: 'true' });
    assert.equal(run.code, 0, `the block failed (${run.signal ?? run.code}):\n${run.stderr}`);

    const answer = JSON.parse(readFileSync(join(checkout, 'poster.json'), 'utf8')) as { url: string; width: number; height: number; bytes: number };
    assert.match(answer.url, /^http:\/\/127\.0\.0\.1:\d+\/static\/posters\/[0-9a-f]{32}\.jpg$/);
    assert.deepEqual([answer.width, answer.height], [1125, 2436]);
    assert.ok(run.stdout.includes(JSON.stringify(answer)), 'the answer is shown on the terminal');

    const poster = readFileSync(join(checkout, 'poster.jpg'));
    assert.deepEqual(sof0Size(poster), { width: 1125, height: 2436 });
    assert.equal(poster.byteLength, answer.bytes);
    assert.ok(existsSync(join(checkout, 'public', 'posters', answer.url.split('/').pop()!)), 'the poster is in public/posters/');

    // The service stopped: `wait` returned, and its output ends with no error.
    const log = readFileSync(join(checkout, 'service.log'), 'utf8');
    assert.match(log, /^listening on http:\/\/127\.0\.0\.1:\d+$/m);
    await assert.rejects(fetch(answer.url), 'the service still answers after the block');
  });
});

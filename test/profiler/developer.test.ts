/**
 * Black-box: the dev profiler as a Symfony developer expects it. `/_profiler/latest`, source links
 * that open at their line, times as the log file writes them, every setting on the config panel,
 * one search row per request.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SECRET_SETTINGS } from '../../src/config/config.js';
import { problemOf, send } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const varDir = mkdtempSync(join(tmpdir(), 'profiler-developer-'));
after(() => rmSync(varDir, { recursive: true, force: true }));
const SECRET = 'developer-secret-value-9';
const dev = await startTestService({
  APP_ENV: 'dev',
  APP_DEBUG: '1',
  VAR_DIR: varDir,
  LOG_TIMEZONE: 'Asia/Kolkata',
  APP_SECRET: SECRET,
  TRUSTED_HOSTS: 'localhost,127.0.0.1',
  BROKER_USER: `user-${SECRET}`,
});
const JSON_ACCEPT = { accept: 'application/problem+json' };
/** `2026-11-26 04:02:13 +05:30`: the log file's timestamp and the zone's offset. */
const KOLKATA_TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+05:30/;

describe('/_profiler/latest', () => {
  it('answers a 404 problem, not cached, before any request was profiled', async () => {
    const r = await send(dev.url, 'GET', '/_profiler/latest', JSON_ACCEPT);
    assert.equal(r.status, 404);
    assert.equal(problemOf(r).detail, 'Token "latest" not found.');
    assert.equal(r.headers['cache-control'], 'no-cache, private');
    assert.equal(r.headers.expires, undefined);
  });

  it('shows the newest request\'s profile, any panel, and is never its own latest', async () => {
    await send(dev.url, 'GET', '/');
    const newest = String((await send(dev.url, 'GET', '/newest')).headers['x-debug-token']);
    for (const target of ['/_profiler/latest', '/_profiler/latest?panel=logger', '/_profiler/latest']) {
      const r = await send(dev.url, 'GET', target);
      assert.equal(r.status, 200, target);
      assert.equal(r.headers['x-debug-token'], undefined, `${target} was profiled`);
      assert.ok(r.body.includes(`<h1>GET /newest <span class="status-error">404</span></h1><p>Token ${newest}, `), `${target}: ${r.body.slice(0, 1200)}`);
    }
    assert.ok((await send(dev.url, 'GET', '/_profiler/latest?panel=logger')).body.includes('<a href="/_profiler/' + newest + '?panel=logger" class="current">logger</a>'));
  });
});

describe('the profiler\'s times', () => {
  it('are written as the log file writes them, in LOG_TIMEZONE, with its offset', async () => {
    const token = String((await send(dev.url, 'GET', '/timed')).headers['x-debug-token']);
    const heading = (await send(dev.url, 'GET', `/_profiler/${token}`)).body;
    assert.match(heading, new RegExp(`<p>Token ${token}, ${KOLKATA_TIME.source}, `));
    const logger = (await send(dev.url, 'GET', `/_profiler/${token}?panel=logger`)).body;
    assert.match(logger, new RegExp(`<tr><td>${KOLKATA_TIME.source}</td><td>request.ERROR</td>`));
    const search = (await send(dev.url, 'GET', '/_profiler/search_bar?path=%2Ftimed')).body;
    assert.match(search, new RegExp(`<td>${KOLKATA_TIME.source}</td></tr>`));
    for (const page of [heading, logger, search]) assert.doesNotMatch(page, /\d\d:\d\d:\d\d\.\d{3}Z/);
  });
});

describe('the config panel', () => {
  it('lists every setting the service reads, secrets as ******', async () => {
    // The settings are the names config.ts reads, and the secrets.
    const read = [...readFileSync(join(process.cwd(), 'src', 'config', 'config.ts'), 'utf8').matchAll(/read\('([A-Z_]+)'\)/g)].map((m) => m[1]!);
    const settings = new Set([...read, ...SECRET_SETTINGS]);
    assert.ok(settings.size > 30, `${settings.size} settings found`);
    const token = String((await send(dev.url, 'GET', '/')).headers['x-debug-token']);
    const body = (await send(dev.url, 'GET', `/_profiler/${token}?panel=config`)).body;
    const missing = [...settings].filter((name) => !body.includes(`<tr><th>${name}</th>`));
    assert.deepEqual(missing, [], `not on the config panel: ${missing.join(', ')}`);
    assert.ok(body.includes('<tr><th>TRUSTED_HOSTS</th><td>localhost,127.0.0.1</td></tr>'));
    assert.ok(body.includes('<tr><th>APP_SECRET</th><td>******</td></tr>'));
    assert.ok(body.includes('<tr><th>BROKER_USER</th><td>user-******</td></tr>'), 'a secret inside another setting is masked');
    assert.ok(!body.includes(SECRET));
  });
});

describe('the search list', () => {
  it('gives an unmatched request one row, its fallback sub-request linked in it', async () => {
    const res = await send(dev.url, 'GET', '/unmatched-once');
    const [token, sub] = [String(res.headers['x-debug-token']), String(res.headers['x-previous-debug-token'])];
    const body = (await send(dev.url, 'GET', '/_profiler/search_bar?path=%2Funmatched-once')).body;
    const rows = body.match(/<tr><td>/g) ?? [];
    assert.equal(rows.length, 1, body);
    assert.ok(body.includes(`<tr><td><a href="/_profiler/${token}?panel=request">${token}</a><span class="sub">↳ <a href="/_profiler/${sub}?panel=request">${sub}</a></span></td>`), body);
  });
});

describe('source links', () => {
  it('carry #L<line>, so the source viewer opens at the line of the frame', async () => {
    // A corrupt settings document makes GET / fail unexpectedly (re-read within a second).
    writeFileSync(join(varDir, 'settings', '1.0', 'service.json'), '{"name": "half');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await send(dev.url, 'GET', '/');
    assert.equal(res.status, 500);
    const page = (await send(dev.url, 'GET', `/_profiler/${String(res.headers['x-debug-token'])}?panel=exception`)).body;
    const link = /<a href="(\/_profiler\/open\?file=src%2F[A-Za-z/%0-9-]+\.ts&amp;line=(\d+))#L(\d+)">/.exec(page);
    assert.ok(link, page.slice(page.indexOf('<h2>Stack'), page.indexOf('<h2>Stack') + 800));
    assert.equal(link[3], link[2], 'the fragment names the link\'s line');
    const source = await send(dev.url, 'GET', link[1]!.replace(/&amp;/g, '&'));
    assert.ok(source.body.includes(`<div id="L${link[2]}" class="highlight">`));
  });
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseConfig } from '../../src/config/config.js';
import { startServer } from '../../src/server.js';
import { problemOf, send } from '../helpers/http.js';
import { createMemoryLogger, startTestService } from '../helpers/service.js';

const SECRET = 'topsecret-value-42';
const dev = await startTestService({ APP_ENV: 'dev', APP_DEBUG: '1', APP_SECRET: SECRET, JWT_PASSPHRASE: 'jwt-pass-phrase' });
const JSON_ACCEPT = { accept: 'application/problem+json' };


describe('debug headers', () => {
  it('gives an unmatched request its token, the fallback\'s token and the link', async () => {
    const res = await send(dev.url, 'GET', '/api/user/reg');
    const token = String(res.headers['x-debug-token']);
    const previous = String(res.headers['x-previous-debug-token']);
    assert.match(token, /^[0-9a-f]{6}$/);
    assert.match(previous, /^[0-9a-f]{6}$/);
    assert.notEqual(previous, token);
    assert.equal(res.headers['x-debug-token-link'], `${dev.url}/_profiler/${token}`);
  });

  it('gives a matched request its token and link, and no previous token', async () => {
    const res = await send(dev.url, 'GET', '/');
    assert.match(String(res.headers['x-debug-token']), /^[0-9a-f]{6}$/);
    assert.equal(res.headers['x-debug-token-link'], `${dev.url}/_profiler/${res.headers['x-debug-token']}`);
    assert.equal(res.headers['x-previous-debug-token'], undefined);
  });

  it('shows the request id the answer carried on the profile\'s request panel', async () => {
    const res = await send(dev.url, 'GET', '/nowhere-with-an-id');
    const id = String(res.headers['x-request-id']);
    const page = await send(dev.url, 'GET', `/_profiler/${res.headers['x-debug-token']}?panel=request`);
    assert.ok(page.body.includes(`<tr><th>request id</th><td>${id}</td></tr>`), `no row for ${id}`);
  });

  it('does not profile the profiler\'s own pages', async () => {
    const res = await send(dev.url, 'GET', '/_profiler/search_bar');
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-debug-token'], undefined);
  });

  it('links the profile from the dev error page', async () => {
    const res = await send(dev.url, 'GET', '/nowhere');
    assert.ok(res.body.includes(`<a href="${dev.url}/_profiler/${res.headers['x-debug-token']}">`), 'no link to the profile');
  });
});

describe('profile pages', async () => {
  const res = await send(dev.url, 'GET', `/doc/1.0/${SECRET}?q=1`, { authorization: 'Bearer abc.def.ghi', cookie: 'sid=s3ss10n', referer: 'https://e.org/"><b>x</b>' });
  const token = String(res.headers['x-debug-token']);
  const fallback = String(res.headers['x-previous-debug-token']);
  const page = (target: string) => send(dev.url, 'GET', target);

  const pages: [string, RegExp][] = [
    [`/_profiler/${token}`, /^text\/html; charset=UTF-8$/],
    [`/_profiler/${token}?panel=request`, /^text\/html/],
    [`/_profiler/${token}?panel=exception`, /^text\/html/],
    [`/_profiler/${token}?panel=logger`, /^text\/html/],
    [`/_profiler/${token}?panel=config`, /^text\/html/],
    [`/_profiler/${token}?panel=bogus`, /^text\/html/],
    [`/_profiler/${token}/exception`, /^text\/html/],
    [`/_profiler/${token}/exception.css`, /^text\/css/],
    [`/_profiler/search_bar?panel=logger`, /^text\/html/],
    [`/_profiler/${fallback}`, /^text\/html/],
  ];
  for (const [target, type] of pages) {
    it(`answers ${target.replace(token, '<token>').replace(fallback, '<fallback>')} with 200 and masks every secret`, async () => {
      const r = await page(target);
      assert.equal(r.status, 200, target);
      assert.match(String(r.headers['content-type']), type, target);
      for (const secret of [SECRET, 'abc.def.ghi', 's3ss10n', 'jwt-pass-phrase']) {
        assert.ok(!r.body.includes(secret), `${target} shows ${secret}`);
      }
      assert.ok(!r.body.includes('<b>x</b>'), `${target} shows the referer unescaped`);
    });
  }

  it('names the fallback controller, the attributes and the masked credentials on the request panel', async () => {
    const body = (await page(`/_profiler/${token}?panel=request`)).body;
    assert.ok(body.includes('rest.problem.fallback::index'));
    assert.ok(body.includes('<tr><th>rest.tunneling.header</th><td>X-HTTP-Method</td></tr>'));
    assert.ok(body.includes('<tr><th>rest.tunneling.original_method</th><td>GET</td></tr>'));
    assert.ok(body.includes('<tr><th>rest.service.zone</th><td>false</td></tr>'));
    assert.ok(body.includes('<tr><th>authorization</th><td>******</td></tr>'));
    assert.ok(body.includes('<tr><th>cookie</th><td>******</td></tr>'));
    assert.ok(body.includes(`<tr><th>x-debug-token</th><td>${token}</td></tr>`), 'response headers are shown');
    assert.ok(body.includes(`href="/_profiler/${fallback}"`), 'the sub-request is linked');
  });

  it('shows the request\'s log lines on the logger panel', async () => {
    const body = (await page(`/_profiler/${token}?panel=logger`)).body;
    assert.ok(body.includes('request.ERROR'));
    assert.ok(body.includes('No route found for &quot;GET /doc/1.0/******&quot;'));
    assert.ok(body.includes('Incident: - Type: '));
  });

  it('shows the problem on the exception panel and page', async () => {
    for (const target of [`/_profiler/${token}?panel=exception`, `/_profiler/${token}/exception`]) {
      const body = (await page(target)).body;
      assert.ok(body.includes('<tr><th>status</th><td>404</td></tr>'), target);
      assert.ok(body.includes(`<tr><th>type</th><td>${dev.url}/problem/1.0</td></tr>`), target);
    }
  });

  it('shows settings on the config panel with secrets as ******', async () => {
    const body = (await page(`/_profiler/${token}?panel=config`)).body;
    assert.ok(body.includes('<tr><th>APP_SECRET</th><td>******</td></tr>'));
    assert.ok(body.includes('<tr><th>JWT_PASSPHRASE</th><td>******</td></tr>'));
    assert.ok(body.includes('<tr><th>APP_KEY</th><td>(empty)</td></tr>'));
    assert.ok(body.includes('<tr><th>LOG_TIMEZONE</th><td>Europe/Madrid</td></tr>'));
  });

  it('links the main request from the fallback\'s profile', async () => {
    const body = (await page(`/_profiler/${fallback}`)).body;
    assert.ok(body.includes(`main request: <a href="/_profiler/${token}">`));
  });

  it('finds the profile from the search bar by path, method and status', async () => {
    const body = (await page('/_profiler/search_bar?method=get&path=%2Fdoc%2F1.0&status=404&panel=logger')).body;
    assert.ok(body.includes(`<a href="/_profiler/${token}?panel=logger">${token}</a>`));
    const none = (await page('/_profiler/search_bar?status=299')).body;
    assert.ok(none.includes('No profile matches.'));
  });

  it('answers HEAD on a page like GET without a body', async () => {
    const r = await send(dev.url, 'HEAD', `/_profiler/${token}`);
    assert.equal(r.status, 200);
    assert.equal(r.body, '');
  });

  it('answers POST with 405 and Allow: GET', async () => {
    const r = await send(dev.url, 'POST', `/_profiler/${token}`, JSON_ACCEPT);
    assert.equal(r.status, 405);
    assert.equal(r.headers.allow, 'GET');
  });
});

describe('unknown tokens', () => {
  for (const target of ['/_profiler/abcdef', '/_profiler/abcdef/exception', '/_profiler/abcdef/exception.css', '/_profiler/%3Cscript%3E']) {
    it(`answers ${target} with a 404 problem naming the token`, async () => {
      const r = await send(dev.url, 'GET', target, JSON_ACCEPT);
      assert.equal(r.status, 404, target);
      const token = decodeURIComponent(target.split('/')[2]!);
      assert.equal(problemOf(r).detail, `Token "${token}" not found.`, target);
    });
  }

  it('forgets the oldest profiles beyond PROFILER_MAX', async () => {
    const small = await startTestService({ APP_ENV: 'dev', APP_DEBUG: '1', PROFILER_MAX: '3' });
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) tokens.push(String((await send(small.url, 'GET', '/')).headers['x-debug-token']));
    assert.equal((await send(small.url, 'GET', `/_profiler/${tokens[0]}`)).status, 200);
    await send(small.url, 'GET', '/');
    assert.equal((await send(small.url, 'GET', `/_profiler/${tokens[0]}`)).status, 404);
    assert.equal((await send(small.url, 'GET', `/_profiler/${tokens[1]}`)).status, 200);
  });
});

describe('the size of a profile', () => {
  it('keeps at most 64 KiB of a request with 990 headers, the rest cut with a marker, its response headers whole', async () => {
    const headers = Object.fromEntries(Array.from({ length: 990 }, (_, i) => [`x-h${i}`, 'v']));
    const res = await send(dev.url, 'GET', '/many-headers', headers);
    const token = String(res.headers['x-debug-token']);
    const body = (await send(dev.url, 'GET', `/_profiler/${token}?panel=request`)).body;
    const section = body.slice(body.indexOf('<h2>Request headers</h2>'), body.indexOf('<h2>Response headers</h2>'));
    const kept = section.match(/<tr><th>x-h\d+<\/th>/g)?.length ?? 0;
    assert.ok(kept > 100 && kept < 500, `${kept} of 990 headers kept`);
    // Sorted by name: host and connection come first and are kept; the marker row is last.
    const marker = /<tr><th>…<\/th><td>… \[(\d+) more not kept: the profile&#39;s 64 KiB are spent\]<\/td><\/tr><\/table>$/.exec(section);
    assert.equal(kept + Number(marker?.[1]), 990, `${kept} kept, the marker: ${marker?.[0]}`);
    assert.ok(body.includes(`<tr><th>x-debug-token</th><td>${token}</td></tr>`), 'the response headers are kept');
  });
});

describe('/_profiler/open', () => {
  it('shows a source file under src/ with the line highlighted', async () => {
    const r = await send(dev.url, 'GET', '/_profiler/open?file=src%2Fapp%2Fapp.ts&line=3');
    assert.equal(r.status, 200);
    assert.ok(r.body.includes('<h1>src/app/app.ts</h1>'));
    assert.match(r.body, /<div id="L3" class="highlight"><span>3<\/span>/);
  });

  it('accepts an absolute path inside src/', async () => {
    const r = await send(dev.url, 'GET', `/_profiler/open?file=${encodeURIComponent(join(process.cwd(), 'src', 'core', 'router.ts'))}`);
    assert.equal(r.status, 200);
  });

  const hostile = [
    '/etc/passwd', '../package.json', 'src/../package.json', 'package.json', '.env', 'src', 'src/', 'src/profiler',
    'src/app/app.ts\0.png', 'src/nope.ts', '', '..\\src\\app.ts', `${process.cwd()}/src/../package.json`, 'test/app/app.test.ts',
  ];
  for (const file of hostile) {
    it(`refuses file=${JSON.stringify(file)} with the observed 404`, async () => {
      const r = await send(dev.url, 'GET', `/_profiler/open?file=${encodeURIComponent(file)}&line=1`, JSON_ACCEPT);
      assert.equal(r.status, 404, file);
      assert.equal(problemOf(r).detail, `The file "${file}" cannot be opened.`, file);
      assert.ok(!r.body.includes('root:x:0:0'), file);
    });
  }

  it('refuses a symlink that leaves src/ and a sibling directory with a common prefix', async () => {
    const project = mkdtempSync(join(tmpdir(), 'project-'));
    after(() => rmSync(project, { recursive: true, force: true }));
    mkdirSync(join(project, 'src'));
    mkdirSync(join(project, 'src-old'));
    writeFileSync(join(project, 'src', 'ok.ts'), 'export const ok = 1;\n');
    writeFileSync(join(project, 'src-old', 'secret.ts'), 'secret\n');
    symlinkSync('/etc/passwd', join(project, 'src', 'passwd.ts'));
    symlinkSync(join(project, 'src-old'), join(project, 'src', 'old'));
    const config = parseConfig({ APP_ENV: 'dev', APP_DEBUG: '1', PORT: '0', VAR_DIR: join(project, 'var') }, project);
    const running = await startServer({ config, logger: createMemoryLogger() });
    after(() => running.stop());
    assert.equal((await send(running.url, 'GET', '/_profiler/open?file=src/ok.ts')).status, 200);
    for (const file of ['src/passwd.ts', 'src/old/secret.ts', 'src-old/secret.ts', `${project}/src-old/secret.ts`]) {
      const r = await send(running.url, 'GET', `/_profiler/open?file=${encodeURIComponent(file)}`, JSON_ACCEPT);
      assert.equal(r.status, 404, file);
      assert.equal(problemOf(r).detail, `The file "${file}" cannot be opened.`, file);
    }
  });
});

describe('outside dev with debug', () => {
  const variants: Record<string, string>[] = [{ APP_ENV: 'prod' }, { APP_ENV: 'dev', APP_DEBUG: '0' }, { APP_ENV: 'test', APP_DEBUG: '1' }];
  // Debug on in prod still has no profiler: only APP_ENV=dev with APP_DEBUG=1 does.
  variants.push({ ...variants[0], APP_DEBUG: '1' });
  for (const vars of variants) {
    it(`has no profiler with APP_ENV=${vars.APP_ENV} APP_DEBUG=${'APP_DEBUG' in vars ? vars.APP_DEBUG : '0'}`, async () => {
      const service = await startTestService(vars);
      const res = await send(service.url, 'GET', '/x');
      assert.equal(res.headers['x-debug-token'], undefined);
      assert.equal(res.headers['x-previous-debug-token'], undefined);
      const page = await send(service.url, 'GET', '/_profiler/search_bar', JSON_ACCEPT);
      assert.equal(page.status, 404);
      assert.equal(problemOf(page).detail, 'No route found for "GET /_profiler/search_bar"');
    });
  }
});

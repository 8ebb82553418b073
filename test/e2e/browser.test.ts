/**
 * What a person sees in a real browser: Debian's Chromium, headless, driven through its own
 * command line only (`--dump-dom` for the rendered DOM after the load event, `--screenshot` for
 * a PNG of the same page load). Pages: the HTML entry point, a 404 problem page, every profiler
 * page, a dev 500 page of the built service (frames mapped to src/ and linked to their source),
 * and a static test page showing a poster drawn by the library. The screenshots stay in
 * test-output/browser/ for a person to look at. Needs chromium; fails, never skips, without it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writePoster } from '../../src/poster/library.js';
import { send } from '../helpers/http.js';
import { runProgram } from '../helpers/programs.js';
import { runServerProgram } from '../helpers/service.js';
import { chromiumArgs, visibleText } from './chromium.js';

const OUTPUT_DIR = join('test-output', 'browser');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const POSTER_TITLE = 'Año Nuevo en la azotea';

/** A static page that shows the poster and, once it has loaded, its natural size. */
function posterTestPage(posterFile: string): string {
  return `<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Poster test</title>
<style>body{margin:0;font:16px sans-serif;background:#eee;text-align:center}img{height:800px;box-shadow:0 2px 8px #0004}</style>
</head><body>
<figure><img id="poster" src="posters/${posterFile}" alt="${POSTER_TITLE}"><figcaption>${POSTER_TITLE}</figcaption></figure>
<p id="size">not loaded</p>
<script>
const img = document.getElementById('poster');
const show = () => { document.getElementById('size').textContent = img.naturalWidth + 'x' + img.naturalHeight; };
img.addEventListener('load', show);
img.addEventListener('error', () => { document.getElementById('size').textContent = 'failed to load'; });
if (img.complete && img.naturalWidth > 0) show();
</script>
</body></html>
`;
}

describe('a real browser (headless Chromium)', () => {
  const publicDir = mkdtempSync(join(tmpdir(), 'browser-public-'));
  const profileDir = mkdtempSync(join(tmpdir(), 'browser-profile-'));
  // Registered before the service starts, so it runs before the helper removes its VAR_DIR.
  after(async () => {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    rmSync(publicDir, { recursive: true, force: true });
    rmSync(profileDir, { recursive: true, force: true });
  });
  // The built service, as `npm start` runs it: its stack frames must still name src/.
  const build = spawnSync(process.execPath, ['scripts/build-if-needed.mjs'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  const service = runServerProgram({ APP_ENV: 'dev', APP_DEBUG: '1', PUBLIC_DIR: publicDir }, [], 'dist/server.js');
  let url = '';

  before(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    const poster = await writePoster({ title: POSTER_TITLE, subtitle: 'Seen through Chromium', body: 'Drawn and encoded by the service\'s own TypeScript.' }, publicDir);
    writeFileSync(join(publicDir, 'poster-test.html'), posterTestPage(basename(poster)));
    url = await service.listening;
  });

  /**
   * Loads `target` once, dumping the DOM after the load event and a screenshot to
   * test-output/browser/<name>.png; checks the PNG signature and returns the visible text.
   */
  async function view(target: string, name: string, windowSize = '1280,900'): Promise<{ dom: string; text: string }> {
    const screenshot = join(OUTPUT_DIR, `${name}.png`);
    rmSync(screenshot, { force: true });
    const result = await runProgram('chromium', [
      ...chromiumArgs(profileDir), `--window-size=${windowSize}`, `--screenshot=${screenshot}`,
      '--virtual-time-budget=5000', '--dump-dom', `${url}${target}`,
    ]);
    assert.equal(result.code, 0, `chromium failed on ${target}: ${result.stderr}`);
    const png = readFileSync(screenshot);
    assert.ok(png.length > 1000, `${screenshot}: only ${png.length} bytes`);
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE, `${screenshot} is not a PNG`);
    const dom = result.stdout.toString('utf8');
    return { dom, text: visibleText(dom) };
  }

  it('shows the service name on the HTML entry point', async () => {
    const { dom, text } = await view('/', 'entry-point');
    assert.match(dom, /<title>problem-service<\/title>/);
    assert.match(text, /^problem-service Version \d/);
  });

  it('shows the 404 message on a problem page', async () => {
    const { text } = await view('/nowhere', 'not-found');
    assert.ok(text.includes('No route found for "GET /nowhere"'), text.slice(0, 500));
  });

  it('shows the fallback controller on the profiler page of an unrouted request', async () => {
    const res = await send(url, 'GET', '/nowhere', { accept: 'text/html' });
    const token = res.headers['x-debug-token'];
    assert.match(String(token), /^[0-9a-f]{6}$/);
    const { text } = await view(`/_profiler/${String(token)}`, 'profiler');
    assert.ok(text.includes('rest.problem.fallback::index'), text.slice(0, 500));
  });

  it('shows every profiler page, the current tab marked and a request\'s sub-request linked in its one search row', async () => {
    const res = await send(url, 'GET', '/doc/1.0/lock', { accept: 'text/html' });
    const token = String(res.headers['x-debug-token']);
    for (const panel of ['request', 'exception', 'logger', 'config']) {
      const { dom, text } = await view(`/_profiler/${token}?panel=${panel}`, `profiler-${panel}`);
      assert.ok(dom.includes(`<a href="/_profiler/${token}?panel=${panel}" class="current">${panel}</a>`), `${panel} is not the current tab`);
      assert.ok(text.includes('GET /doc/1.0/lock'), text.slice(0, 300));
    }
    const exception = await view(`/_profiler/${token}/exception`, 'profiler-exception-page');
    assert.ok(exception.text.includes('No route found for "GET /doc/1.0/lock"'));
    const search = await view('/_profiler/search_bar?path=%2Fdoc%2F1.0%2Flock', 'profiler-search');
    assert.equal((search.dom.match(/<span class="sub">↳ <a /g) ?? []).length, 1, 'the fallback sub-request is not linked once in its request\'s row');
    const source = await view('/_profiler/open?file=src%2Fapp%2Fapp.ts&line=3', 'profiler-open');
    assert.ok(source.dom.includes('<div id="L3" class="highlight">'));
  });

  it('maps the stack of a dev 500 page to src/ and links each project frame to its source', async () => {
    // A corrupt settings document makes GET / fail unexpectedly (re-read within a second).
    writeFileSync(join(service.varDir, 'settings', '1.0', 'service.json'), '{"name": "half');
    await new Promise((r) => setTimeout(r, 1100));
    const { dom } = await view('/', 'dev-500');
    const link = /<a href="(\/_profiler\/open\?file=src%2F[A-Za-z0-9%-]+\.ts&amp;line=\d+#L\d+)">[^<]*\/src\/[a-z/-]+\.ts:\d+:\d+<\/a>/.exec(dom);
    assert.ok(link, `no frame linked to src/: ${dom.slice(dom.indexOf('Stack'), dom.indexOf('Stack') + 600)}`);
    assert.ok(!/dist\/[a-z/-]+\.js:\d+/.test(dom), 'a frame still points into dist/');
    const source = await view(link[1]!.replace(/&amp;/g, '&'), 'dev-500-source');
    assert.match(source.dom, /<div id="L\d+" class="highlight">/);
  });

  it('loads a poster the library drew, at its natural size, with its title', async () => {
    const { dom, text } = await view('/static/poster-test.html', 'poster', '900,900');
    // Written by the page's own script on the image's load event.
    assert.equal(/<p id="size">([^<]*)<\/p>/.exec(dom)?.[1], '1125x2436');
    assert.ok(dom.includes(`alt="${POSTER_TITLE}"`), 'alt text');
    assert.ok(text.includes(POSTER_TITLE), 'caption');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderStack } from '../../src/core/html.js';
import { PROFILER_CSS, renderProfilePage, renderSearchPage } from '../../src/profiler/pages.js';
import type { Profile } from '../../src/profiler/profile.js';

/** WCAG 2 contrast ratio of two `#rrggbb` colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

function rule(selector: string): string {
  const at = PROFILER_CSS.indexOf(`\n${selector}{`);
  assert.ok(at >= 0, `no rule for ${selector}`);
  return PROFILER_CSS.slice(at, PROFILER_CSS.indexOf('}', at));
}

describe('the profiler stylesheet', () => {
  it('draws the current tab with readable contrast (it was white on the near-white page)', () => {
    const current = rule('nav a.current');
    const color = /color:(#[0-9a-f]{6})/.exec(current.replace('background:', 'bg:'))?.[1];
    const background = /background:(#[0-9a-f]{6})/.exec(current)?.[1];
    assert.ok(color && background, current);
    assert.ok(contrast(color, background) >= 4.5, `contrast ${contrast(color, background).toFixed(2)}`);
  });

  it('breaks long values only where it must, not mid-word everywhere', () => {
    assert.ok(!PROFILER_CSS.includes('break-all'), 'word-break:break-all is back');
    assert.match(rule('td'), /overflow-wrap:anywhere/);
  });
});

function profile(token: string, parentToken: string | undefined, children: string[]): Profile {
  return {
    token, parentToken, children, time: 0, requestId: 'r-1', method: 'GET', originalMethod: 'GET', rawPath: '/x', target: '/x',
    clientIp: '127.0.0.1', requestHeaders: [], responseHeaders: [], attributes: {}, status: 404, durationMs: 1,
    logs: [], problem: undefined, stack: undefined,
  };
}

describe('renderSearchPage', () => {
  it('gives a request one row, its sub-request linked in that row', () => {
    const html = renderSearchPage({}, 'request', [profile('aaaaaa', undefined, ['bbbbbb'])], 'UTC');
    assert.equal((html.match(/<tr[ >]/g) ?? []).length, 2, 'a header row and one row for the request');
    assert.ok(html.includes('<tr><td><a href="/_profiler/aaaaaa?panel=request">aaaaaa</a><span class="sub">↳ <a href="/_profiler/bbbbbb?panel=request">bbbbbb</a></span></td>'), html);
  });

  it('shows each time in the given zone with its offset', () => {
    const html = renderSearchPage({}, 'request', [profile('aaaaaa', undefined, [])], 'Europe/Madrid');
    assert.ok(html.includes('<td>1970-01-01 01:00:00 +01:00</td>'), html);
  });
});

describe('renderProfilePage', () => {
  it('shows the request panel of a 405, whose controller is unset, without that attribute (found by the fuzz tier)', () => {
    const p = { ...profile('cccccc', undefined, []), status: 405, attributes: { 'rest.service.zone': false, _controller: undefined, n: 1 } };
    const html = renderProfilePage(p, 'request', { settings: [], timeZone: 'UTC' });
    assert.ok(html.includes('<tr><th>rest.service.zone</th><td>false</td></tr>'), html);
    assert.ok(html.includes('<tr><th>n</th><td>1</td></tr>'), html);
    assert.ok(!html.includes('<th>_controller</th>'), html);
    assert.ok(html.includes('<tr><th>controller</th><td></td></tr>'), html);
  });
});

describe('renderStack', () => {
  const stack = [
    'Error: boom <b>',
    '    at load (file:///srv/app/src/store.ts:42:11)',
    '    at /srv/app/src/app.ts:7:3',
    '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  ].join('\n');
  const link = (file: string, line: number) => (file.startsWith('/srv/app/src/') ? `/_profiler/open?file=${file.slice(9)}&line=${line}` : undefined);

  it('links frames in project files to their source line and escapes the rest', () => {
    const html = renderStack(stack, link);
    assert.ok(html.includes('Error: boom &lt;b&gt;'));
    assert.ok(html.includes('at load (<a href="/_profiler/open?file=src/store.ts&amp;line=42">file:///srv/app/src/store.ts:42:11</a>)'), html);
    assert.ok(html.includes('at <a href="/_profiler/open?file=src/app.ts&amp;line=7">/srv/app/src/app.ts:7:3</a>'), html);
    assert.ok(html.includes('(node:internal/process/task_queues:95:5)'), 'a Node frame stays text');
  });

  it('leaves every frame as text without a link function', () => {
    assert.ok(!renderStack(stack, undefined).includes('<a '));
  });
});

/**
 * The profiler's pages: server-rendered HTML, no external assets, every value escaped.
 */
import { escapeHtml, renderStack, type SourceLink } from '../core/index.js';
import { ZonedTime } from '../log/index.js';
import type { Profile } from './profile.js';
import { formatProfileTime, formatProfileTimeIn } from './time.js';
import { unreachable } from '../util/unreachable.js';

export const PANELS = ['request', 'exception', 'logger', 'config'] as const;
export type Panel = (typeof PANELS)[number];

/** The one stylesheet, served at `/_profiler/<token>/exception.css`. */
export const PROFILER_CSS = `
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d2330;background:#f4f5f8}
header{background:#1d2330;color:#fff;padding:.75rem 1.5rem;display:flex;gap:1.5rem;align-items:baseline;flex-wrap:wrap}
header a{color:#cfd8ff}header strong{font-size:1.1rem}
nav{display:flex;gap:.25rem;flex-wrap:wrap;margin:.75rem 0;border-bottom:2px solid #1d2330}
nav a{padding:.3rem .8rem;border-radius:.3rem .3rem 0 0;color:#1f4fd1;text-decoration:none}
nav a.current{font-weight:700;color:#ffffff;background:#1d2330}
main{max-width:72rem;margin:1.5rem auto;padding:0 1.5rem}
h1{font-size:1.4rem;margin:.5rem 0}h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #d8dbe3;padding:.3rem .5rem;text-align:left;vertical-align:top}
td{font-family:ui-monospace,monospace;font-size:.85rem;overflow-wrap:anywhere}
td .sub{display:block;font-size:.8rem}
a{color:#1f4fd1}
.status-error{color:#8a1c2b;font-weight:700}.status-ok{color:#1b6b36;font-weight:700}
pre{background:#fff;border:1px solid #d8dbe3;padding:1rem;overflow:auto;font-size:.8rem}
.source{counter-reset:none;font-family:ui-monospace,monospace;font-size:.8rem;background:#fff;border:1px solid #d8dbe3}
.source div{white-space:pre;padding:0 .5rem}.source span{display:inline-block;width:4rem;color:#8890a4;user-select:none}
.source .highlight{background:#fff3b0}
form{display:flex;gap:.5rem;flex-wrap:wrap;margin:1rem 0}input,button{font:inherit;padding:.25rem .5rem}
`;

function layout(title: string, body: string, stylesheetToken: string | undefined): string {
  const style = stylesheetToken
    ? `<link rel="stylesheet" href="/_profiler/${escapeHtml(stylesheetToken)}/exception.css">`
    : `<style>${PROFILER_CSS}</style>`;
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="UTF-8"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(title)}</title>${style}</head><body>` +
    `<header><strong>Profiler</strong><a href="/_profiler/search_bar">Search</a></header><main>${body}</main></body></html>\n`
  );
}

function table(rows: readonly (readonly [string, string])[], empty = 'None.'): string {
  if (rows.length === 0) return `<p>${escapeHtml(empty)}</p>`;
  return `<table>${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
}

/**
 * The attributes as rows. One left unset (`_controller` of a 405, which no controller answers)
 * is no attribute: it has no row. Anything that is no string is shown as JSON.
 */
function attributeRows(attributes: Readonly<Record<string, unknown>>): (readonly [string, string])[] {
  return Object.entries(attributes)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => [key, typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))]);
}

function statusClass(status: number | undefined): string {
  return status !== undefined && status >= 400 ? 'status-error' : 'status-ok';
}

function panelNav(token: string, current: Panel): string {
  return `<nav>${PANELS.map(
    (panel) =>
      `<a href="/_profiler/${token}?panel=${panel}"${panel === current ? ' class="current"' : ''}>${panel}</a>`,
  ).join('')}<a href="/_profiler/${token}/exception">exception page</a></nav>`;
}

/** What a profile page shows beside the profile. */
export interface ProfileView {
  /** The already-masked config pairs. */
  readonly settings: readonly (readonly [string, string])[];
  readonly sourceLink?: SourceLink | undefined;
  /** LOG_TIMEZONE: times are shown as the log file writes them, with the offset. */
  readonly timeZone: string;
}

/** `/_profiler/<token>?panel=…`. */
export function renderProfilePage(profile: Profile, panel: Panel, view: ProfileView): string {
  const heading =
    `<h1>${escapeHtml(profile.method)} ${escapeHtml(profile.rawPath)} ` +
    `<span class="${statusClass(profile.status)}">${profile.status ?? '…'}</span></h1>` +
    `<p>Token ${escapeHtml(profile.token)}, ${formatProfileTime(profile.time, view.timeZone)}` +
    `${profile.durationMs === undefined ? '' : `, ${profile.durationMs.toFixed(1)} ms`}</p>` +
    panelNav(profile.token, panel);
  return layout(`Profile ${profile.token}`, heading + renderPanel(profile, panel, view), profile.token);
}

function renderPanel(profile: Profile, panel: Panel, view: ProfileView): string {
  switch (panel) {
    case 'request':
      return renderRequestPanel(profile);
    case 'exception':
      return renderExceptionPanel(profile, view.sourceLink);
    case 'logger':
      return renderLoggerPanel(profile, new ZonedTime(view.timeZone));
    case 'config':
      return `<h2>Settings</h2>${table(view.settings)}`;
    default:
      return unreachable(panel);
  }
}

function renderRequestPanel(p: Profile): string {
  const related = [
    ...(p.parentToken ? [['main request', p.parentToken] as const] : []),
    ...p.children.map((t) => ['sub-request', t] as const),
  ];
  const links = related.length
    ? `<h2>Related requests</h2><ul>${related
        .map(([kind, t]) => `<li>${kind}: <a href="/_profiler/${escapeHtml(t)}">${escapeHtml(t)}</a></li>`)
        .join('')}</ul>`
    : '';
  return (
    '<h2>Request</h2>' +
    table([
      ['request id', p.requestId],
      ['method', p.method],
      ['original method', p.originalMethod],
      ['target', p.target],
      ['path', p.rawPath],
      ['client IP', p.clientIp],
      ['controller', String(p.attributes._controller ?? '')],
      ['status', String(p.status ?? '')],
    ]) +
    '<h2>Attributes</h2>' +
    table(attributeRows(p.attributes)) +
    '<h2>Request headers</h2>' +
    table(p.requestHeaders) +
    '<h2>Response headers</h2>' +
    table(p.responseHeaders) +
    links
  );
}

function renderExceptionPanel(p: Profile, sourceLink: SourceLink | undefined): string {
  if (!p.problem) return '<h2>Exception</h2><p>No exception was raised for this request.</p>';
  const members = Object.entries(p.problem).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]);
  const stack = p.stack ? `<h2>Stack</h2>${renderStack(p.stack, sourceLink)}` : '';
  return `<h2>Problem</h2>${table(members)}${stack}`;
}

function renderLoggerPanel(p: Profile, zoned: ZonedTime): string {
  if (p.logs.length === 0) return '<h2>Log</h2><p>No log lines for this request.</p>';
  const rows = p.logs
    .map(
      (l) =>
        `<tr><td>${formatProfileTimeIn(zoned, l.at)}</td><td>${escapeHtml(`${l.channel}.${l.level}`)}</td><td>${escapeHtml(l.message)}</td></tr>`,
    )
    .join('');
  return `<h2>Log</h2><table><tr><th>time</th><th>channel.level</th><th>message</th></tr>${rows}</table>`;
}

/** `/_profiler/<token>/exception`: the problem alone, as a page of its own. */
export function renderExceptionPage(profile: Profile, sourceLink?: SourceLink): string {
  return layout(`Exception of ${profile.token}`, `<h1>Exception of ${escapeHtml(profile.token)}</h1>${renderExceptionPanel(profile, sourceLink)}`, profile.token);
}

export interface SearchCriteria {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly ip?: string;
}

/**
 * `/_profiler/search_bar`: the form and the newest matching requests, one row each; a request's
 * sub-request (the fallback handler's) is linked in its row.
 */
export function renderSearchPage(criteria: SearchCriteria, panel: Panel, results: readonly Profile[], timeZone: string): string {
  const field = (name: string, label: string, value: string | number | undefined) =>
    `<label>${label} <input name="${name}" value="${escapeHtml(value === undefined ? '' : String(value))}"></label>`;
  const form =
    '<form method="get" action="/_profiler/search_bar">' +
    field('method', 'Method', criteria.method) +
    field('path', 'Path', criteria.path) +
    field('status', 'Status', criteria.status) +
    field('ip', 'IP', criteria.ip) +
    `<input type="hidden" name="panel" value="${escapeHtml(panel)}"><button>Search</button></form>`;
  const zoned = new ZonedTime(timeZone);
  const link = (token: string) => `<a href="/_profiler/${escapeHtml(token)}?panel=${panel}">${escapeHtml(token)}</a>`;
  const rows = results
    .map(
      (p) =>
        `<tr><td>${link(p.token)}${p.children.map((t) => `<span class="sub">↳ ${link(t)}</span>`).join('')}</td>` +
        `<td>${escapeHtml(p.method)}</td><td>${escapeHtml(p.rawPath)}</td><td class="${statusClass(p.status)}">${p.status ?? ''}</td>` +
        `<td>${escapeHtml(p.clientIp)}</td><td>${formatProfileTimeIn(zoned, p.time)}</td></tr>`,
    )
    .join('');
  const list = results.length
    ? `<table><tr><th>token</th><th>method</th><th>path</th><th>status</th><th>IP</th><th>time</th></tr>${rows}</table>`
    : '<p>No profile matches.</p>';
  return layout('Profiler search', `<h1>Search profiles</h1>${form}${list}`, undefined);
}

/** `/_profiler/open`: a source file with line numbers, `line` highlighted. */
export function renderSourcePage(displayPath: string, text: string, line: number | undefined): string {
  const lines = text.split('\n')
    .map((content, i) => {
      const n = i + 1;
      const mark = n === line ? ' class="highlight"' : '';
      return `<div id="L${n}"${mark}><span>${n}</span>${escapeHtml(content)}</div>`;
    })
    .join('');
  return layout(displayPath, `<h1>${escapeHtml(displayPath)}</h1><div class="source">${lines}</div>`, undefined);
}

/**
 * A real browser over HTTPS from the process: Debian's Chromium, headless, driven through its
 * own command line only (as ./browser.test.ts drives it), trusting the test's own leaf by the
 * SHA-256 of its public key (`--ignore-certificate-errors-spki-list`, Chromium's way for a test
 * CA), against the dev service (APP_ENV=dev, APP_DEBUG=1: the profiler exists). A 404 page and
 * the profile of that very request, each shown and each served over h2. Screenshots stay in
 * test-output/browser-https/. Needs chromium and openssl; fails, never skips, without them.
 *
 * How "served over h2" is known, from both ends and from nothing a page script computes:
 * - Chromium's net log (`--log-net-log`) is its own record of every request: one sent on an
 *   HTTP/2 stream is logged as HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS, one sent over
 *   HTTP/1.x as HTTP_TRANSACTION_SEND_REQUEST_HEADERS; the main frame's request is the page.
 * - The service's profile of a request lists its request headers as received; only an h2
 *   request has pseudo-headers (`:scheme`, `:authority`): an HTTP/1.1 header name cannot start
 *   with a colon, and such a request shows `host` instead.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runProgram } from '../helpers/programs.js';
import { chromiumArgs, visibleText } from './chromium.js';
import { createTestPki, pairFiles, startHttpsService, stopService } from './tls-helpers.js';

const OUTPUT_DIR = join('test-output', 'browser-https');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chromium's ERR_CERT_AUTHORITY_INVALID (net/base/net_error_list.h). */
const ERR_CERT_AUTHORITY_INVALID = -202;

/** A net log as Chromium writes it: event types by number, and the events. */
interface NetLog {
  readonly constants: { readonly logEventTypes: Readonly<Record<string, number>> };
  readonly events: readonly { readonly type: number; readonly source: { readonly id: number }; readonly params?: Readonly<Record<string, unknown>> }[];
}

/** One URL request of a net log: what it asked for, how it was sent, how it ended. */
interface LoggedRequest {
  readonly url: string;
  /** `main frame` for the page itself. */
  readonly requestType: unknown;
  /** How its headers were sent: on an HTTP/2 stream or over HTTP/1.x; undefined when never sent. */
  readonly sentAs: 'h2' | 'http/1.x' | undefined;
  /** Chromium's error, when it ended in one. */
  readonly netError: number | undefined;
}

/** The URL requests of a net log, by what the log says of each. */
function loggedRequests(log: NetLog): LoggedRequest[] {
  const type = (name: string) => {
    const number = log.constants.logEventTypes[name];
    assert.ok(number !== undefined, `the net log knows no ${name} event`);
    return number;
  };
  const START = type('URL_REQUEST_START_JOB');
  const SENT_H2 = type('HTTP_TRANSACTION_HTTP2_SEND_REQUEST_HEADERS');
  const SENT_H1 = type('HTTP_TRANSACTION_SEND_REQUEST_HEADERS');
  const requests = new Map<number, { url: string; requestType: unknown; sentAs: LoggedRequest['sentAs']; netError: number | undefined }>();
  for (const event of log.events) {
    const request = requests.get(event.source.id);
    if (event.type === START && typeof event.params?.url === 'string') {
      requests.set(event.source.id, { url: event.params.url, requestType: event.params.request_type, sentAs: undefined, netError: undefined });
    } else if (request && event.type === START && typeof event.params?.net_error === 'number') {
      request.netError = event.params.net_error;
    } else if (request && event.type === SENT_H2) request.sentAs = 'h2';
    else if (request && event.type === SENT_H1) request.sentAs = 'http/1.x';
  }
  return [...requests.values()];
}

const pki = await createTestPki();
const spki = pki.first.spkiSha256;
const service = await startHttpsService(pairFiles(pki, pki.first), { APP_ENV: 'dev', APP_DEBUG: '1' });
const origin = `https://localhost:${service.port}`;

describe('a real browser over HTTPS (headless Chromium)', () => {
  const profileDir = mkdtempSync(join(tmpdir(), 'browser-https-profile-'));
  after(() => rmSync(profileDir, { recursive: true, force: true }));
  before(() => mkdirSync(OUTPUT_DIR, { recursive: true }));

  /**
   * Loads `target` once, trusting the test's leaf unless `trusted` is false: the DOM after the
   * load event, a screenshot (test-output/browser-https/<name>.png, checked to be a PNG when the
   * page loaded), and the net log of the load.
   */
  async function view(target: string, name: string, trusted = true): Promise<{ dom: string; text: string; requests: LoggedRequest[] }> {
    const screenshot = join(OUTPUT_DIR, `${name}.png`);
    const netLog = join(profileDir, `${name}.netlog.json`);
    rmSync(screenshot, { force: true });
    const result = await runProgram('chromium', [
      ...chromiumArgs(profileDir), ...(trusted ? [`--ignore-certificate-errors-spki-list=${spki}`] : []),
      `--log-net-log=${netLog}`, '--window-size=1280,900', `--screenshot=${screenshot}`,
      '--virtual-time-budget=5000', '--dump-dom', `${origin}${target}`,
    ]);
    assert.equal(result.code, 0, `chromium failed on ${target}: ${result.stderr}`);
    if (trusted) {
      const png = readFileSync(screenshot);
      assert.ok(png.length > 1000, `${screenshot}: only ${png.length} bytes`);
      assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE, `${screenshot} is not a PNG`);
    }
    const dom = result.stdout.toString('utf8');
    const requests = loggedRequests(JSON.parse(readFileSync(netLog, 'utf8')) as NetLog);
    return { dom, text: visibleText(dom), requests };
  }

  /** The main frame's request of a load, which must be the one for `target`. */
  function page(requests: readonly LoggedRequest[], target: string): LoggedRequest {
    const frames = requests.filter((request) => request.requestType === 'main frame');
    assert.deepEqual(frames.map((request) => request.url), [`${origin}${target}`]);
    return frames[0]!;
  }

  it('refuses the service\'s certificate without the test leaf trusted: Chromium really checks it', async () => {
    const { dom, requests } = await view('/nowhere', 'untrusted', false);
    const frame = page(requests, '/nowhere');
    assert.equal(frame.netError, ERR_CERT_AUTHORITY_INVALID);
    assert.equal(frame.sentAs, undefined);
    assert.ok(!dom.includes('No route found'), 'the page was shown anyway');
  });

  it('shows the 404 message on a problem page served over h2', async () => {
    const { text, requests } = await view('/nowhere', 'not-found');
    assert.ok(text.includes('No route found for "GET /nowhere"'), text.slice(0, 500));
    const frame = page(requests, '/nowhere');
    assert.equal(frame.sentAs, 'h2');
    assert.equal(frame.netError, undefined);
  });

  it('shows the fallback controller on the profile of the browser\'s own 404, which records an h2 request', async () => {
    const notFound = await view('/nowhere/profiled', 'profiled-not-found');
    // The 404 page links the profile of the request that made it: this browser's.
    const link = /<a href="(https:\/\/localhost:\d+)(\/_profiler\/[0-9a-f]{6})">Open the profile of this request<\/a>/.exec(notFound.dom);
    assert.ok(link, `no profile link: ${notFound.text.slice(0, 500)}`);
    assert.equal(link[1], origin);
    const { text, requests } = await view(link[2]!, 'profiled-not-found-profile');
    assert.ok(text.includes('rest.problem.fallback::index'), text.slice(0, 500));
    assert.ok(text.includes('GET /nowhere/profiled'), text.slice(0, 500));
    // The request headers as the service received them: h2's pseudo-headers, Chromium's agent.
    const headers = text.slice(text.indexOf('Request headers'), text.indexOf('Response headers'));
    assert.ok(headers.includes(':scheme https'), headers);
    assert.ok(headers.includes(`:authority localhost:${service.port}`), headers);
    assert.ok(headers.includes(':path /nowhere/profiled'), headers);
    assert.ok(!/\bhost localhost/.test(headers), `an HTTP/1.1 Host header: ${headers}`);
    assert.match(headers, /user-agent Mozilla\/5\.0 .*HeadlessChrome\//);
    assert.equal(page(requests, link[2]!).sentAs, 'h2');
  });

  it('stops with SIGTERM, exit code 0', async () => {
    assert.deepEqual(await stopService(service.program), [0, null]);
  });
});

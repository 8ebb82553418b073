import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_CACHE_CONTROL,
  IMMUTABLE_CACHE_CONTROL,
  cacheControlFor,
  planFileResponse,
  type FileFacts,
  type FilePlan,
} from '../../src/static/plan.js';

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const FILE: FileFacts = {
  size: 1000,
  etag: '"3e8-1"',
  lastModified: Date.UTC(2025, 0, 2, 3, 4, 5),
  contentType: 'text/plain; charset=utf-8',
  cacheControl: DEFAULT_CACHE_CONTROL,
};
const DATE = 'Sun, 15 Jun 2025 12:00:00 GMT';

/** The value a plan's head gives `name` (heads are flat lists: name, value, …). */
function headerOf(plan: FilePlan, name: string): string | undefined {
  if (!('headers' in plan)) return undefined;
  const at = plan.headers.indexOf(name);
  return at % 2 === 0 ? plan.headers[at + 1] : undefined;
}
const LAST_MODIFIED = 'Thu, 02 Jan 2025 03:04:05 GMT';

describe('cacheControlFor', () => {
  it('gives posters a year, immutable', () => {
    assert.equal(cacheControlFor(['posters', 'ab12.jpg']), IMMUTABLE_CACHE_CONTROL, 'posters/ab12.jpg');
    assert.equal(cacheControlFor(['posters', 'sub', 'ab12.jpg']), IMMUTABLE_CACHE_CONTROL, 'posters/sub/ab12.jpg');
  });
  it('gives every other file an hour', () => {
    assert.equal(cacheControlFor(['a.txt']), 'public, max-age=3600', 'a.txt');
    assert.equal(cacheControlFor(['posters']), DEFAULT_CACHE_CONTROL, 'a file named posters');
    assert.equal(cacheControlFor(['sub', 'posters', 'x.jpg']), DEFAULT_CACHE_CONTROL, 'sub/posters/x.jpg');
  });
});

describe('planFileResponse', () => {
  it('answers a plain GET with 200, every header and the whole file', () => {
    assert.deepEqual(planFileResponse({ method: 'GET' }, FILE, NOW), {
      status: 200,
      headers: [
        'content-type', 'text/plain; charset=utf-8',
        'x-content-type-options', 'nosniff',
        'etag', '"3e8-1"',
        'last-modified', LAST_MODIFIED,
        'cache-control', DEFAULT_CACHE_CONTROL,
        'accept-ranges', 'bytes',
        'date', DATE,
        'content-length', '1000',
      ],
      body: { start: 0, end: 999 },
    });
  });

  it('answers HEAD with the GET headers and no body', () => {
    const get = planFileResponse({ method: 'GET' }, FILE, NOW);
    const head = planFileResponse({ method: 'HEAD' }, FILE, NOW);
    assert.ok('headers' in get && 'headers' in head, 'both are answers to send');
    assert.deepEqual(head.headers, get.headers, 'HEAD headers');
    assert.equal(head.body, undefined, 'HEAD body');
  });

  it('sends no body for an empty file', () => {
    const plan = planFileResponse({ method: 'GET' }, { ...FILE, size: 0 }, NOW);
    assert.equal(plan.status, 200, 'empty file status');
    assert.equal(headerOf(plan, 'content-length'), '0', 'empty file length');
    assert.equal(plan.body, undefined, 'empty file body');
  });

  it('answers 304 with the validators, the cache policy and Date only', () => {
    assert.deepEqual(planFileResponse({ method: 'GET', ifNoneMatch: '"3e8-1"' }, FILE, NOW), {
      status: 304,
      headers: ['etag', '"3e8-1"', 'last-modified', LAST_MODIFIED, 'cache-control', DEFAULT_CACHE_CONTROL, 'date', DATE],
      body: undefined,
    });
  });

  it('answers 304 to HEAD too', () => {
    assert.equal(planFileResponse({ method: 'HEAD', ifModifiedSince: LAST_MODIFIED }, FILE, NOW).status, 304);
  });

  it('plans 412, for a problem, when If-Match fails', () => {
    assert.deepEqual(planFileResponse({ method: 'GET', ifMatch: '"other"' }, FILE, NOW), { status: 412 });
  });

  it('answers one satisfiable range with 206 and Content-Range', () => {
    const plan = planFileResponse({ method: 'GET', range: 'bytes=10-19' }, FILE, NOW);
    assert.equal(plan.status, 206, 'status');
    assert.equal(headerOf(plan, 'content-range'), 'bytes 10-19/1000', 'content-range');
    assert.equal(headerOf(plan, 'content-length'), '10', 'content-length');
    assert.equal(headerOf(plan, 'etag'), FILE.etag, 'etag');
    assert.deepEqual(plan.body, { start: 10, end: 19 }, 'body');
  });

  it('plans 416 with the size, for a problem, when the range cannot be satisfied', () => {
    assert.deepEqual(planFileResponse({ method: 'GET', range: 'bytes=1000-' }, FILE, NOW), { status: 416, size: 1000 });
  });

  it('ignores Range on HEAD (RFC 9110 14.2: only GET)', () => {
    const plan = planFileResponse({ method: 'HEAD', range: 'bytes=0-1' }, FILE, NOW);
    assert.equal(plan.status, 200, 'status');
    assert.equal(headerOf(plan, 'content-length'), '1000', 'content-length');
    assert.equal(plan.body, undefined, 'body');
  });

  it('applies the range when If-Range carries the current strong tag', () => {
    assert.equal(planFileResponse({ method: 'GET', range: 'bytes=0-1', ifRange: '"3e8-1"' }, FILE, NOW).status, 206);
  });

  it('sends the whole file when If-Range does not hold', () => {
    const plan = planFileResponse({ method: 'GET', range: 'bytes=0-1', ifRange: 'W/"3e8-1"' }, FILE, NOW);
    assert.equal(plan.status, 200, 'status');
    assert.deepEqual(plan.body, { start: 0, end: 999 }, 'body');
  });

  it('sends the whole file, not 416, when If-Range does not hold for an unsatisfiable range', () => {
    assert.equal(planFileResponse({ method: 'GET', range: 'bytes=5000-', ifRange: '"old"' }, FILE, NOW).status, 200);
  });

  it('lets a 304 win over a Range', () => {
    assert.equal(planFileResponse({ method: 'GET', range: 'bytes=0-1', ifNoneMatch: '*' }, FILE, NOW).status, 304);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { types } from 'node:util';
import { InvalidHost, InvalidMethodOverride, HostCount, InvalidRequestTarget, UnsupportedHttpVersion, UnsupportedTransferCoding, UntrustedHost } from '../../src/http/problems.js';
import { formatHttpDate } from '../../src/http/http-date.js';
import { InvalidJson, PayloadTooLarge, UnsupportedMediaType } from '../../src/http/request-body.js';
import { Unauthorized } from '../../src/jwt/index.js';
import { InvalidPosterSpec } from '../../src/poster/api.js';
import { RenderQueueFull } from '../../src/poster/pool.js';
import { LimitsUnavailable } from '../../src/poster/limits/limits.js';
import { InsufficientStorage } from '../../src/poster/limits/quota.js';
import { TooManyRequests } from '../../src/poster/limits/rate.js';
import { FileCannotBeOpened, TokenNotFound } from '../../src/profiler/routes.js';
import { PreconditionFailed, RangeNotSatisfiable, StaticFilesBusy } from '../../src/static/problems.js';
import { StoreNotWritable } from '../../src/store/index.js';
import {
  InternalError,
  MAX_PLAIN_PAGES,
  MethodNotAllowed,
  PROBLEMS,
  PlainProblemPages,
  Problem,
  RouteNotFound,
  buildProblemDocument,
  methodNotAllowed,
  notFoundCachePolicy,
  problemHeaders,
  problemType,
  renderProblem,
  routeNotFound,
} from '../../src/core/problem.js';

const BASE = 'https://api.example.com/problem/';

describe('problemType', () => {
  const cases: [string, string][] = [
    ['/doc/1.0/lock', `${BASE}1.0`],
    ['/.well-known/security.txt', `${BASE}.well-known`],
    ['/robots.txt', 'about:blank'],
    ['/', 'about:blank'],
    ['*', 'about:blank'],
    ['/a/b/', `${BASE}b`],
    ['/a//b', 'about:blank'],
    ['/a%20b/c', `${BASE}a%20b`],
    ['/a"b/c', `${BASE}a%22b`],
    ['/50%/c', `${BASE}50%25`],
  ];
  for (const [path, type] of cases) {
    it(`gives ${type} for ${path}`, () => assert.equal(problemType(BASE, path), type, path));
  }
});

describe('problem documents', () => {
  it('builds the RFC 9457 members', () => {
    assert.deepEqual(buildProblemDocument(new RouteNotFound('GET', '/doc/1.0/x', undefined), BASE, '/doc/1.0/x', false), {
      type: `${BASE}1.0`,
      title: 'Not Found',
      status: 404,
      detail: 'No route found for "GET /doc/1.0/x"',
      instance: '/doc/1.0/x',
    });
  });
  it('hides the message of a 500 unless debugging', () => {
    const problem = new InternalError(new Error('db password is hunter2'));
    assert.equal(buildProblemDocument(problem, BASE, '/', false).detail, 'The server could not answer this request.');
    assert.equal(buildProblemDocument(problem, BASE, '/', true).detail, 'db password is hunter2');
  });
  it('keeps the detail of a deliberate 5xx such as 503 busy', () => {
    const busy = new RenderQueueFull(1);
    assert.equal(buildProblemDocument(busy, BASE, '/api/posters', false).detail, 'Too many posters are being rendered; try again shortly.');
  });
  it('adds the referer only when it is non-empty', () => {
    assert.equal(new RouteNotFound('GET', '/x', '').message, 'No route found for "GET /x"');
  });
});

describe('the HTML page outside debug', () => {
  const pages = new PlainProblemPages();
  const plain = { debug: false, method: 'GET', target: '/x', clientIp: '127.0.0.1', profilerLink: undefined, stack: undefined };
  const doc = (status: number, title: string) => ({ type: 'about:blank', title, status, detail: 'No route found for "GET /x"', instance: '/x' });

  it('shows status and title only, the same page each time, and another title its own page', () => {
    const page = renderProblem(doc(404, 'Not Found'), 'html', plain, pages);
    assert.equal(page.contentType, 'text/html; charset=UTF-8');
    assert.match(page.body, /<title>404 Not Found<\/title>/);
    assert.match(page.body, /<main><p class="status">404<\/p><h1>Not Found<\/h1><\/main>/);
    assert.ok(!page.body.includes('GET /x') && !page.body.includes('127.0.0.1'));
    assert.equal(renderProblem(doc(404, 'Not Found'), 'html', plain, pages).body, page.body);
    // A title with a secret masked in it is a title of its own, and then the usual one again.
    assert.match(renderProblem(doc(404, 'Not ******'), 'html', plain, pages).body, /<h1>Not \*{6}<\/h1>/);
    assert.match(renderProblem(doc(404, 'Not <Found>'), 'html', plain, pages).body, /<h1>Not &lt;Found&gt;<\/h1>/);
    assert.equal(renderProblem(doc(404, 'Not Found'), 'html', plain, pages).body, page.body);
    assert.match(renderProblem(doc(405, 'Method Not Allowed'), 'html', plain, pages).body, /<title>405 Method Not Allowed<\/title>/);
  });

  it('writes the right page for every status beyond the bound of pages it keeps', () => {
    const few = new PlainProblemPages();
    for (let status = 100; status < 100 + MAX_PLAIN_PAGES; status++) few.page(status, `Title ${status}`);
    assert.match(few.page(999, 'Beyond'), /<title>999 Beyond<\/title>/);
    assert.match(few.page(999, 'Beyond'), /<title>999 Beyond<\/title>/);
    assert.match(few.page(100, 'Title 100'), /<title>100 Title 100<\/title>/);
  });
});

describe('the JSON document', () => {
  const page = { debug: false, method: 'GET', target: '/x', clientIp: '127.0.0.1', profilerLink: undefined, stack: undefined };
  const pages = new PlainProblemPages();
  const doc = (detail: string) => ({ type: 'about:blank', title: 'Not Found', status: 404, detail, instance: '/x' });
  const json = (d: Record<string, unknown>) => JSON.parse(renderProblem(d as never, 'json', page, pages).body) as Record<string, unknown>;

  it('writes every member of each document, also one asked again or like the last but for one member', () => {
    assert.deepEqual(json(doc('No route found for "GET /x"')), doc('No route found for "GET /x"'));
    assert.deepEqual(json(doc('No route found for "GET /x"')), doc('No route found for "GET /x"'));
    assert.deepEqual(json(doc('No route found for "GET /y"')), doc('No route found for "GET /y"'));
    assert.deepEqual(json({ ...doc('No route found for "GET /y"'), status: 405 }), { ...doc('No route found for "GET /y"'), status: 405 });
    // Extension members follow the five: a document with them is never taken for the last one.
    const withExtensions = { ...doc('No route found for "GET /y"'), errors: ['title: required'] };
    assert.deepEqual(json(withExtensions), withExtensions);
    assert.deepEqual(json(doc('No route found for "GET /y"')), doc('No route found for "GET /y"'));
    assert.equal(renderProblem(doc('x') as never, 'json', page, pages).contentType, 'application/problem+json');
  });
});

describe('problemHeaders', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  it('gives a 404 the observed cache policy and expires a max-age later', () => {
    assert.deepEqual(problemHeaders(new RouteNotFound('GET', '/x', undefined), now, notFoundCachePolicy('immutable, max-age=31536000, public'), formatHttpDate), [
      'x-robots-tag', 'none',
      'cache-control', 'immutable, max-age=31536000, public',
      'expires', 'Mon, 22 Nov 2027 12:00:00 GMT',
    ]);
  });
  it('follows a configured 404 policy', () => {
    const headers = problemHeaders(new RouteNotFound('GET', '/x', undefined), now, notFoundCachePolicy('public, max-age=60'), formatHttpDate);
    assert.deepEqual(headers.slice(4), ['expires', 'Sun, 22 Nov 2026 12:01:00 GMT']);
    assert.deepEqual(problemHeaders(new RouteNotFound('GET', '/x', undefined), now, notFoundCachePolicy('no-store'), formatHttpDate), ['x-robots-tag', 'none', 'cache-control', 'no-store']);
  });
  it('gives other errors no-cache, private and their own headers', () => {
    assert.deepEqual(problemHeaders(new MethodNotAllowed('PUT', '/', ['GET']), now, notFoundCachePolicy('x'), formatHttpDate), [
      'x-robots-tag', 'none',
      'cache-control', 'no-cache, private',
      'allow', 'GET',
    ]);
  });
});

describe('the error model', () => {
  it('names each problem for its class and keeps its data in fields, not only in the message', () => {
    const notFound = new RouteNotFound('GET', '/x', 'https://e.org/');
    assert.equal(notFound.name, 'RouteNotFound');
    assert.equal(notFound.code, 'route_not_found');
    assert.equal(notFound.status, 404);
    assert.deepEqual([notFound.method, notFound.path, notFound.referer], ['GET', '/x', 'https://e.org/']);
    const notAllowed = new MethodNotAllowed('PUT', '/', ['GET', 'HEAD']);
    assert.equal(notAllowed.name, 'MethodNotAllowed');
    assert.deepEqual([notAllowed.method, notAllowed.path, notAllowed.allow], ['PUT', '/', ['GET', 'HEAD']]);
    const host = new InvalidHost('bad_host!');
    assert.equal(host.name, 'InvalidHost');
    assert.equal(host.host, 'bad_host!');
    assert.ok(host instanceof Problem && host instanceof Error);
  });
});

describe('a problem as an Error', () => {
  it('is a native Error with a stack like any other, and the process\'s stack limit is never touched', () => {
    const limit = Error.stackTraceLimit;
    const notFound = new RouteNotFound('GET', '/x', undefined);
    assert.ok(types.isNativeError(notFound));
    assert.match(notFound.stack ?? '', /^RouteNotFound: No route found for "GET \/x"\n {4}at /);
    assert.equal(String(notFound), 'RouteNotFound: No route found for "GET /x"');
    assert.equal(Error.stackTraceLimit, limit);
  });

  it('keeps name, message, stack and cause out of its own enumerable keys, as Error does', () => {
    const cause = new Error('disk on fire');
    const internal = new InternalError(cause);
    assert.equal(internal.cause, cause);
    assert.equal(internal.name, 'InternalError');
    for (const key of Object.keys(internal)) assert.ok(!['name', 'message', 'stack', 'cause'].includes(key), key);
  });
});

describe("the router's misses as records", () => {
  it('answer a 404 as the thrown RouteNotFound does, without building an Error', () => {
    const record = routeNotFound('GET', '/doc/1.0/x', 'https://e.org/');
    const thrown = new RouteNotFound('GET', '/doc/1.0/x', 'https://e.org/');
    assert.ok(!(record instanceof Error));
    assert.deepEqual([record.code, record.status, record.message, record.headers], [thrown.code, thrown.status, thrown.message, thrown.headers]);
    assert.deepEqual(buildProblemDocument(record, BASE, '/doc/1.0/x', false), buildProblemDocument(thrown, BASE, '/doc/1.0/x', false));
  });

  it('answer a 405 with its Allow list as the thrown MethodNotAllowed does', () => {
    const record = methodNotAllowed('PUT', '/', ['GET', 'HEAD']);
    const thrown = new MethodNotAllowed('PUT', '/', ['GET', 'HEAD']);
    assert.ok(!(record instanceof Error));
    assert.deepEqual([record.code, record.status, record.message, record.headers], [thrown.code, thrown.status, thrown.message, { allow: 'GET, HEAD' }]);
    assert.deepEqual(thrown.headers, { allow: 'GET, HEAD' });
  });
});

describe('the catalogue of problems', () => {
  /** One problem of each class, as the service throws them. */
  const examples: Problem[] = [
    new RouteNotFound('GET', '/x', undefined),
    new MethodNotAllowed('PUT', '/', ['GET']),
    new InternalError(new Error('boom')),
    new InvalidMethodOverride(),
    new InvalidHost('bad_host!'),
    new HostCount(2),
    new UntrustedHost('evil.example'),
    new InvalidRequestTarget('x'),
    new UnsupportedHttpVersion('2.0'),
    new UnsupportedTransferCoding('gzip'),
    new PayloadTooLarge(10),
    new UnsupportedMediaType('application/json', undefined),
    new InvalidJson('Unexpected end'),
    new PreconditionFailed('/a.txt'),
    new RangeNotSatisfiable('bytes=9-', '/a.txt', 3),
    new StaticFilesBusy('/a.txt', 2),
    new StoreNotWritable(new Error('EACCES')),
    new TokenNotFound('abc'),
    new FileCannotBeOpened('x.ts'),
    new Unauthorized('api', 'This route needs a bearer token.', false),
    new InvalidPosterSpec([], 'https://api.example.com/schema'),
    new RenderQueueFull(1),
    new InsufficientStorage(10, 10),
    new LimitsUnavailable(),
    new TooManyRequests(5, 30),
  ];

  it('lists each class under the code it throws with, and answers with the listed status', () => {
    for (const problem of examples) {
      const entry = PROBLEMS[problem.code];
      assert.equal(entry.class, problem.name, `${problem.name} throws ${problem.code}, listed for ${entry.class}`);
      assert.equal(problem.status, entry.status, problem.name);
    }
  });

  it('has one class per code and lists every class of src that extends Problem', () => {
    const listed = Object.values(PROBLEMS).map((entry) => entry.class).sort();
    assert.deepEqual(listed, [...new Set(listed)].sort(), 'a class listed under two codes');
    assert.deepEqual(problemClassesIn('src'), listed);
    assert.deepEqual(examples.map((problem) => problem.name).sort(), listed);
  });
});

/** The names of the classes declared `extends Problem` in the TypeScript files under `dir`. */
function problemClassesIn(dir: string): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const match of text.matchAll(/class (\w+) extends Problem\b/g)) names.push(match[1]!);
  }
  return names.sort();
}

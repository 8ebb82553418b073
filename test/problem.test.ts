import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InternalError, InvalidHost, MethodNotAllowed, Problem, RouteNotFound, buildProblemDocument, problemHeaders, problemType, renderProblem } from '../src/problem.js';

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
    const busy = new Problem('busy', 503, 'Too many posters are being rendered; try again shortly.');
    assert.equal(buildProblemDocument(busy, BASE, '/api/posters', false).detail, 'Too many posters are being rendered; try again shortly.');
  });
  it('adds the referer only when it is non-empty', () => {
    assert.equal(new RouteNotFound('GET', '/x', '').message, 'No route found for "GET /x"');
  });
});

describe('the HTML page outside debug', () => {
  const plain = { debug: false, method: 'GET', target: '/x', clientIp: '127.0.0.1', profilerLink: undefined, stack: undefined };
  const doc = (status: number, title: string) => ({ type: 'about:blank', title, status, detail: 'No route found for "GET /x"', instance: '/x' });

  it('shows status and title only, the same page each time, and another title its own page', () => {
    const page = renderProblem(doc(404, 'Not Found'), 'html', plain);
    assert.equal(page.contentType, 'text/html; charset=UTF-8');
    assert.match(page.body, /<title>404 Not Found<\/title>/);
    assert.match(page.body, /<main><p class="status">404<\/p><h1>Not Found<\/h1><\/main>/);
    assert.ok(!page.body.includes('GET /x') && !page.body.includes('127.0.0.1'));
    assert.equal(renderProblem(doc(404, 'Not Found'), 'html', plain).body, page.body);
    // A title with a secret masked in it is a title of its own, and then the usual one again.
    assert.match(renderProblem(doc(404, 'Not ******'), 'html', plain).body, /<h1>Not \*{6}<\/h1>/);
    assert.match(renderProblem(doc(404, 'Not <Found>'), 'html', plain).body, /<h1>Not &lt;Found&gt;<\/h1>/);
    assert.equal(renderProblem(doc(404, 'Not Found'), 'html', plain).body, page.body);
    assert.match(renderProblem(doc(405, 'Method Not Allowed'), 'html', plain).body, /<title>405 Method Not Allowed<\/title>/);
  });
});

describe('the JSON document', () => {
  const page = { debug: false, method: 'GET', target: '/x', clientIp: '127.0.0.1', profilerLink: undefined, stack: undefined };
  const doc = (detail: string) => ({ type: 'about:blank', title: 'Not Found', status: 404, detail, instance: '/x' });
  const json = (d: Record<string, unknown>) => JSON.parse(renderProblem(d as never, 'json', page).body) as Record<string, unknown>;

  it('writes every member of each document, also one asked again or like the last but for one member', () => {
    assert.deepEqual(json(doc('No route found for "GET /x"')), doc('No route found for "GET /x"'));
    assert.deepEqual(json(doc('No route found for "GET /x"')), doc('No route found for "GET /x"'));
    assert.deepEqual(json(doc('No route found for "GET /y"')), doc('No route found for "GET /y"'));
    assert.deepEqual(json({ ...doc('No route found for "GET /y"'), status: 405 }), { ...doc('No route found for "GET /y"'), status: 405 });
    // Extension members follow the five: a document with them is never taken for the last one.
    const withExtensions = { ...doc('No route found for "GET /y"'), errors: ['title: required'] };
    assert.deepEqual(json(withExtensions), withExtensions);
    assert.deepEqual(json(doc('No route found for "GET /y"')), doc('No route found for "GET /y"'));
    assert.equal(renderProblem(doc('x') as never, 'json', page).contentType, 'application/problem+json');
  });
});

describe('problemHeaders', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  it('gives a 404 the observed cache policy and expires a max-age later', () => {
    assert.deepEqual(problemHeaders(new RouteNotFound('GET', '/x', undefined), now, 'immutable, max-age=31536000, public'), [
      'x-robots-tag', 'none',
      'cache-control', 'immutable, max-age=31536000, public',
      'expires', 'Mon, 22 Nov 2027 12:00:00 GMT',
    ]);
  });
  it('follows a configured 404 policy', () => {
    const headers = problemHeaders(new RouteNotFound('GET', '/x', undefined), now, 'public, max-age=60');
    assert.deepEqual(headers.slice(4), ['expires', 'Sun, 22 Nov 2026 12:01:00 GMT']);
    assert.deepEqual(problemHeaders(new RouteNotFound('GET', '/x', undefined), now, 'no-store'), ['x-robots-tag', 'none', 'cache-control', 'no-store']);
  });
  it('gives other errors no-cache, private and their own headers', () => {
    assert.deepEqual(problemHeaders(new MethodNotAllowed('PUT', '/', ['GET']), now, 'x'), [
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

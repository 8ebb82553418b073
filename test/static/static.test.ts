import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readlink, realpath, rm, symlink, truncate, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controllerFor } from '../../src/app/app-observer.js';
import { MethodNotAllowed, RouteNotFound } from '../../src/core/problem.js';
import type { RequestContext } from '../../src/http/request.js';
import { createStaticHandler } from '../../src/static/serve.js';
import { send, sendRaw, statusOf, type RawResponse } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const JSON_ACCEPT = { accept: 'application/problem+json' };
const NOT_FOUND_CACHE = 'immutable, max-age=31536000, public';
const HELLO = 'hello, world\n';
const MODIFIED = new Date('2024-01-02T03:04:05.678Z');
const LAST_MODIFIED = 'Tue, 02 Jan 2024 03:04:05 GMT';
/** A modification time ahead of any clock the tests run on. */
const FUTURE = new Date('2030-01-01T00:00:00Z');
/** What files that must never be served hold. */
const SECRET_CONTENTS = ['outside secret', 'sibling secret', 'APP_SECRET=dotfile', '[core]', 'hidden content'];
const BIG_SIZE = 256 * 1024 * 1024;
const MiB = 1024 * 1024;

// The tree: <tmp>/public is PUBLIC_DIR; <tmp>/secret.txt and <tmp>/public-secret/ lie outside it.
const tmp = await mkdtemp(join(tmpdir(), 'static-test-'));
after(() => rm(tmp, { recursive: true, force: true }));
const publicDir = join(tmp, 'public');
const contentFiles: [string, string][] = [
  ['index.html', 'text/html; charset=utf-8'],
  ['site.css', 'text/css; charset=utf-8'],
  ['app.js', 'text/javascript; charset=utf-8'],
  ['module.mjs', 'text/javascript; charset=utf-8'],
  ['data.json', 'application/json'],
  ['logo.svg', 'image/svg+xml; charset=utf-8'],
  ['image.png', 'image/png'],
  ['photo.jpg', 'image/jpeg'],
  ['photo.jpeg', 'image/jpeg'],
  ['picture.webp', 'image/webp'],
  ['anim.gif', 'image/gif'],
  ['favicon.ico', 'image/vnd.microsoft.icon'],
  ['font.woff2', 'font/woff2'],
  ['paper.pdf', 'application/pdf'],
  ['blob.bin', 'application/octet-stream'],
  ['NO_EXTENSION', 'application/octet-stream'],
];
await mkdir(join(publicDir, 'sub', 'deeper'), { recursive: true });
await mkdir(join(publicDir, 'posters'));
await mkdir(join(publicDir, '.git'));
await mkdir(join(tmp, 'public-secret'));
await writeFile(join(tmp, 'secret.txt'), 'outside secret');
await writeFile(join(tmp, 'public-secret', 'file.txt'), 'sibling secret');
await writeFile(join(publicDir, 'hello.txt'), HELLO);
await utimes(join(publicDir, 'hello.txt'), MODIFIED, MODIFIED);
for (const [name] of contentFiles) await writeFile(join(publicDir, name), `content of ${name}`);
await writeFile(join(publicDir, 'sub', 'deeper', 'deep.txt'), 'deep');
await writeFile(join(publicDir, 'posters', '0a1b2c3d.jpg'), 'jpeg bytes');
await writeFile(join(publicDir, 'empty.txt'), '');
await writeFile(join(publicDir, 'future.txt'), 'from the future');
await utimes(join(publicDir, 'future.txt'), FUTURE, FUTURE);
await writeFile(join(publicDir, '.env'), 'APP_SECRET=dotfile');
await writeFile(join(publicDir, '.git', 'config'), '[core]');
await writeFile(join(publicDir, 'sub', '.hidden'), 'hidden content');
await writeFile(join(publicDir, '%2e%2e'), 'a file whose name is the text %2e%2e');
await symlink('../secret.txt', join(publicDir, 'out.txt'));
await symlink('../public-secret/file.txt', join(publicDir, 'sibling.txt'));
await symlink('..', join(publicDir, 'up'));
await symlink('hello.txt', join(publicDir, 'inside.txt'));
await symlink('.env', join(publicDir, 'env-link'));
await symlink('loop', join(publicDir, 'loop'));
execFileSync('mkfifo', [join(publicDir, 'fifo')]);
const MEDIUM = randomBytes(200 * 1024); // more than one read: streamed
await writeFile(join(publicDir, 'medium.bin'), MEDIUM);
await writeFile(join(publicDir, 'big.bin'), '');
await truncate(join(publicDir, 'big.bin'), BIG_SIZE); // sparse: no disk blocks

const service = await startTestService({ PUBLIC_DIR: publicDir });

function problemOf(res: RawResponse, name: string): Record<string, unknown> {
  assert.equal(res.headers['content-type'], 'application/problem+json', name);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** Asserts the answer of an unrouted path: 404, the observed headers, the raw path in the message. */
async function assertNoRoute(method: string, target: string, name: string, path = target): Promise<void> {
  const res = await send(service.url, method, target, JSON_ACCEPT);
  assert.equal(res.status, 404, name);
  assert.equal(res.headers['cache-control'], NOT_FOUND_CACHE, name);
  assert.equal(res.headers['x-robots-tag'], 'none', name);
  assert.equal(problemOf(res, name).detail, `No route found for "${method} ${path}"`, name);
  for (const content of SECRET_CONTENTS) assert.ok(!res.body.includes(content), `${name}: leaked ${content}`);
}

/** GETs a target and keeps the body as bytes. */
function getBytes(target: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer }> {
  const url = new URL(service.url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: target, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * How many descriptors this process (which runs the service too) holds open on `file`:
 * counting only those keeps the count free of sockets and of other tests' files.
 */
async function openFdsOn(file: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    // A descriptor may close between the listing and the readlink.
    const target = await readlink(join('/proc/self/fd', fd)).catch(() => '');
    if (target === file) count++;
  }
  return count;
}

/** A bounded poll: generous, since a leak fails it all the same and a busy machine closes late. */
async function waitFor(condition: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return condition();
}

describe('static files: GET and HEAD', () => {
  it('answers GET with the file and every header', async () => {
    const res = await send(service.url, 'GET', '/static/hello.txt');
    assert.equal(res.status, 200);
    assert.equal(res.body, HELLO);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(res.headers.etag ?? '', /^"[0-9a-f]+-[0-9a-f]+"$/, 'a strong, quoted ETag');
    assert.equal(res.headers['last-modified'], LAST_MODIFIED);
    assert.equal(res.headers['content-length'], String(HELLO.length));
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.equal(res.headers['cache-control'], 'public, max-age=3600');
    assert.ok(!Number.isNaN(Date.parse(res.headers.date ?? '')), 'a Date header');
  });

  it('answers HEAD with the same headers as GET and no body', async () => {
    const get = await send(service.url, 'GET', '/static/hello.txt');
    const head = await send(service.url, 'HEAD', '/static/hello.txt');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    for (const name of ['content-type', 'x-content-type-options', 'etag', 'last-modified', 'content-length', 'accept-ranges', 'cache-control']) {
      assert.equal(head.headers[name], get.headers[name], `HEAD header ${name}`);
    }
  });

  it('serves files in subdirectories', async () => {
    const res = await send(service.url, 'GET', '/static/sub/deeper/deep.txt');
    assert.equal(res.status, 200);
    assert.equal(res.body, 'deep');
  });

  it('serves an empty file with Content-Length 0', async () => {
    const res = await send(service.url, 'GET', '/static/empty.txt');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-length'], '0');
    assert.equal(res.body, '');
  });

  it('serves a symlink that stays inside PUBLIC_DIR', async () => {
    const res = await send(service.url, 'GET', '/static/inside.txt');
    assert.equal(res.status, 200);
    assert.equal(res.body, HELLO);
  });

  it('decodes each segment once: %252e%252e names the file called %2e%2e', async () => {
    const res = await send(service.url, 'GET', '/static/%252e%252e');
    assert.equal(res.status, 200);
    assert.equal(res.body, 'a file whose name is the text %2e%2e');
  });

  it('serves a file for a tunneled GET (POST with X-HTTP-Method: GET)', async () => {
    const res = await send(service.url, 'POST', '/static/hello.txt', { 'x-http-method': 'GET' });
    assert.equal(res.status, 200);
    assert.equal(res.body, HELLO);
  });

  for (const [name, type] of contentFiles) {
    it(`gives ${name} the content type ${type}`, async () => {
      const res = await send(service.url, 'GET', `/static/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers['content-type'], type, name);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', name);
    });
  }

  it('gives posters/ a year-long immutable cache policy, other files an hour', async () => {
    const poster = await send(service.url, 'GET', '/static/posters/0a1b2c3d.jpg');
    assert.equal(poster.status, 200, 'poster status');
    assert.equal(poster.headers['cache-control'], 'public, max-age=31536000, immutable', 'poster');
    assert.equal(poster.headers['content-type'], 'image/jpeg', 'poster type');
    const other = await send(service.url, 'GET', '/static/photo.jpg');
    assert.equal(other.headers['cache-control'], 'public, max-age=3600', 'other file');
  });

  it('serves from a PUBLIC_DIR that is itself a symlink, and still refuses links out of it', async () => {
    const linked = join(tmp, 'public-link');
    await symlink(publicDir, linked);
    const viaLink = await startTestService({ PUBLIC_DIR: linked });
    assert.equal((await send(viaLink.url, 'GET', '/static/hello.txt')).body, HELLO, 'hello.txt through the linked root');
    assert.equal((await send(viaLink.url, 'GET', '/static/out.txt')).status, 404, 'out.txt through the linked root');
  });

  it('serves under another STATIC_BASE and nowhere else', async () => {
    const moved = await startTestService({ PUBLIC_DIR: publicDir, STATIC_BASE: '/assets/v1/' });
    assert.equal((await send(moved.url, 'GET', '/assets/v1/hello.txt')).body, HELLO, '/assets/v1/hello.txt');
    assert.equal((await send(moved.url, 'GET', '/static/hello.txt')).status, 404, '/static/hello.txt');
  });
});

describe('static files: what is never served', () => {
  const cases: [string, string][] = [
    ['a missing file', '/static/missing.txt'],
    ['a missing file in a missing directory', '/static/nope/missing.txt'],
    ['a file below a file (ENOTDIR)', '/static/hello.txt/x'],
    ['a directory', '/static/sub'],
    ['a directory with a trailing slash', '/static/sub/'],
    ['the root of the static base', '/static/'],
    ['a dotfile', '/static/.env'],
    ['a dotfile spelled %2eenv', '/static/%2eenv'],
    ['a file in a dot-directory', '/static/.git/config'],
    ['a dot-directory', '/static/.git'],
    ['a dotfile in a subdirectory', '/static/sub/.hidden'],
    ['a symlink to a dotfile inside PUBLIC_DIR', '/static/env-link'],
    ['a symlink out of PUBLIC_DIR', '/static/out.txt'],
    ['a symlink to a sibling directory sharing the prefix', '/static/sibling.txt'],
    ['a file through a symlinked directory leading out', '/static/up/secret.txt'],
    ['a plain .. segment', '/static/../secret.txt'],
    ['a .. segment deeper', '/static/sub/../../secret.txt'],
    ['a . segment', '/static/./hello.txt'],
    ['an empty segment', '/static//hello.txt'],
    ['encoded dots %2e%2e', '/static/%2e%2e/secret.txt'],
    ['upper-case encoded dots %2E%2E', '/static/%2E%2E/secret.txt'],
    ['mixed .%2e', '/static/.%2e/secret.txt'],
    ['an encoded slash ..%2f', '/static/..%2fsecret.txt'],
    ['an encoded slash %2e%2e%2f', '/static/%2e%2e%2fsecret.txt'],
    ['an encoded absolute path %2f', '/static/%2fetc%2fpasswd'],
    ['an encoded backslash %5c', '/static/..%5csecret.txt'],
    ['a raw backslash', '/static/..\\secret.txt'],
    ['overlong UTF-8 dots %c0%ae', '/static/%c0%ae%c0%ae/secret.txt'],
    ['overlong UTF-8 slash %c0%af', '/static/..%c0%afsecret.txt'],
    ['double-encoded dots %252e%252e/ that name nothing', '/static/%252e%252e/secret.txt'],
    ['double-encoded slash %252f', '/static/..%252fsecret.txt'],
    ['a NUL %00', '/static/hello.txt%00'],
    ['a NUL before an extension', '/static/hello.txt%00.png'],
    ['an invalid percent-encoding', '/static/%zz'],
    ['a FIFO (never blocks)', '/static/fifo'],
    ['a name too long for the file system', `/static/${'a'.repeat(300)}.txt`],
    ['a path with matrix parameters', '/static/hello.txt;a=1'],
    ['a name in another case (matching is case-sensitive)', '/static/HELLO.TXT'],
  ];
  for (const [name, target] of cases) {
    it(`answers ${name} like an unrouted path: 404 No route found`, () => assertNoRoute('GET', target, name));
  }

  it('answers HEAD on a dotfile with 404 and no body', async () => {
    const res = await send(service.url, 'HEAD', '/static/.env');
    assert.equal(res.status, 404);
    assert.equal(res.body, '');
  });

  it('uses the path of an absolute-form target with ..', () =>
    assertNoRoute('GET', 'http://example.com/static/../secret.txt', 'absolute-form ..', '/static/../secret.txt'));

  it('answers a raw request line with stacked %2e%2e segments with 404 naming the path as sent', async () => {
    const raw = await sendRaw(
      service.url,
      'GET /static/%2e%2e/%2e%2e/secret.txt HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\nConnection: close\r\n\r\n',
    );
    assert.equal(statusOf(raw), 404);
    assert.ok(raw.includes('"detail":"No route found for \\"GET /static/%2e%2e/%2e%2e/secret.txt\\""'), raw);
    assert.ok(!raw.includes('outside secret'), 'leaked the file outside');
  });

  it('appends the Referer to a static 404 like any other', async () => {
    const res = await send(service.url, 'GET', '/static/missing.txt', { ...JSON_ACCEPT, referer: 'https://a.example/' });
    assert.equal(problemOf(res, 'referer').detail, 'No route found for "GET /static/missing.txt" (from "https://a.example/")');
  });

  it('logs a static 404 as request.ERROR, never CRITICAL', async () => {
    service.log.clear();
    await send(service.url, 'GET', '/static/.env');
    assert.deepEqual(
      service.log.lines.filter((l) => l.channel === 'request').map((l) => [l.level, l.message]),
      [['ERROR', 'No route found for "GET /static/.env"']],
    );
  });

  it('answers an I/O error other than a missing file (ELOOP) with 500, logged at CRITICAL', async () => {
    service.log.clear();
    const res = await send(service.url, 'GET', '/static/loop', JSON_ACCEPT);
    assert.equal(res.status, 500);
    assert.equal(res.headers['cache-control'], 'no-cache, private');
    const line = service.log.lines.find((l) => l.level === 'CRITICAL');
    assert.ok(line !== undefined, 'no CRITICAL line');
    assert.match(line.message, /ELOOP/);
    assert.equal((await send(service.url, 'GET', '/static/hello.txt')).status, 200, 'the service keeps serving');
  });

  it('hands a missing file to the fallback controller (No route found)', async () => {
    const serve = createStaticHandler({ publicDir });
    const ctx = { method: 'GET', rawPath: '/static/.env', referer: undefined, receivedAt: 0 } as unknown as RequestContext;
    const refused = await serve(ctx, {} as http.IncomingMessage, {} as http.ServerResponse, ['.env']).then(() => undefined, (err: unknown) => err);
    assert.ok(refused instanceof RouteNotFound);
    assert.equal(controllerFor('app.static', refused), 'rest.problem.fallback::index');
  });

  it('names no controller on a 405, like the router does for its own', async () => {
    const serve = createStaticHandler({ publicDir });
    const ctx = { method: 'PUT', rawPath: '/static/hello.txt', referer: undefined, receivedAt: 0 } as unknown as RequestContext;
    const refused = await serve(ctx, {} as http.IncomingMessage, {} as http.ServerResponse, ['hello.txt']).then(() => undefined, (err: unknown) => err);
    assert.ok(refused instanceof MethodNotAllowed);
    assert.equal(controllerFor('app.static', refused), undefined);
  });
});

describe('static files: methods', () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND']) {
    it(`answers ${method} on an existing file with 405 and Allow: GET, HEAD`, async () => {
      const res = await send(service.url, method, '/static/hello.txt', JSON_ACCEPT);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'GET, HEAD', method);
      assert.equal(res.headers['cache-control'], 'no-cache, private', method);
      assert.equal(
        problemOf(res, method).detail,
        `No route found for "${method} /static/hello.txt": Method Not Allowed (Allow: GET, HEAD)`,
        method,
      );
    });
  }

  for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
    it(`answers ${method} on a missing file, a directory or a dotfile with 404`, async () => {
      await assertNoRoute(method, '/static/missing.txt', `${method} missing`);
      await assertNoRoute(method, '/static/sub', `${method} directory`);
      await assertNoRoute(method, '/static/.env', `${method} dotfile`);
    });
  }

  it('names the tunneled method in a 405 (POST with X-HTTP-Method: PUT)', async () => {
    const res = await send(service.url, 'POST', '/static/hello.txt', { ...JSON_ACCEPT, 'x-http-method': 'PUT' });
    assert.equal(res.status, 405);
    assert.match(String(problemOf(res, 'tunneled').detail), /^No route found for "PUT \/static\/hello\.txt"/);
  });

  it('keeps OPTIONS / answered by the entry point', async () => {
    const res = await send(service.url, 'OPTIONS', '/');
    assert.equal(res.status, 204);
    assert.equal(res.headers.allow, 'OPTIONS, GET, HEAD');
  });
});

describe('static files: conditional requests', () => {
  let etag = '';
  before(async () => {
    etag = (await send(service.url, 'GET', '/static/hello.txt')).headers.etag ?? '';
  });

  async function assertNotModified(headers: Record<string, string>, name: string, method = 'GET'): Promise<void> {
    const res = await send(service.url, method, '/static/hello.txt', headers);
    assert.equal(res.status, 304, name);
    assert.equal(res.body, '', name);
    assert.equal(res.headers.etag, etag, `${name}: ETag`);
    assert.equal(res.headers['last-modified'], LAST_MODIFIED, `${name}: Last-Modified`);
    assert.equal(res.headers['cache-control'], 'public, max-age=3600', `${name}: Cache-Control`);
    assert.equal(res.headers['content-length'], undefined, `${name}: no Content-Length`);
    assert.equal(res.headers['content-type'], undefined, `${name}: no Content-Type`);
  }

  async function assertWhole(headers: Record<string, string>, name: string): Promise<void> {
    const res = await send(service.url, 'GET', '/static/hello.txt', headers);
    assert.equal(res.status, 200, name);
    assert.equal(res.body, HELLO, name);
  }

  it('answers If-None-Match with the current tag with 304 and the validators', () => assertNotModified({ 'if-none-match': etag }, 'exact tag'));
  it('compares If-None-Match weakly (W/ prefix matches)', () => assertNotModified({ 'if-none-match': `W/${etag}` }, 'weak tag'));
  it('finds the tag in an If-None-Match list', () => assertNotModified({ 'if-none-match': `"nope", ${etag}` }, 'list'));
  it('answers If-None-Match: * with 304', () => assertNotModified({ 'if-none-match': '*' }, 'star'));
  it('answers HEAD with If-None-Match with 304', () => assertNotModified({ 'if-none-match': etag }, 'HEAD', 'HEAD'));
  it('answers another If-None-Match tag with 200', () => assertWhole({ 'if-none-match': '"nope"' }, 'other tag'));
  it('lets If-None-Match win over If-Modified-Since', () =>
    assertWhole({ 'if-none-match': '"nope"', 'if-modified-since': LAST_MODIFIED }, 'INM wins'));
  it('answers If-Modified-Since equal to Last-Modified with 304', () => assertNotModified({ 'if-modified-since': LAST_MODIFIED }, 'IMS equal'));
  it('answers a later If-Modified-Since with 304', () =>
    assertNotModified({ 'if-modified-since': 'Wed, 03 Jan 2024 00:00:00 GMT' }, 'IMS later'));
  it('answers an earlier If-Modified-Since with 200', () => assertWhole({ 'if-modified-since': 'Tue, 02 Jan 2024 03:04:04 GMT' }, 'IMS earlier'));
  it('ignores an If-Modified-Since that is not an HTTP-date', () => assertWhole({ 'if-modified-since': '2030' }, 'IMS garbage'));

  it('answers a failing If-Match with a 412 problem, logged as request.ERROR', async () => {
    service.log.clear();
    const res = await send(service.url, 'GET', '/static/hello.txt', { ...JSON_ACCEPT, 'if-match': `W/${etag}` });
    assert.equal(res.status, 412);
    assert.equal(res.headers['cache-control'], 'no-cache, private');
    assert.equal(res.headers['x-robots-tag'], 'none');
    assert.equal(res.headers.vary, 'Accept');
    assert.equal(res.headers.etag, undefined, 'no validators on an error');
    const detail = 'The precondition on "/static/hello.txt" failed.';
    assert.deepEqual(problemOf(res, '412'), {
      type: `${service.url}/problem/static`,
      title: 'Precondition Failed',
      status: 412,
      detail,
      instance: '/static/hello.txt',
    });
    assert.deepEqual(
      service.log.lines.filter((l) => l.channel === 'request').map((l) => [l.level, l.message]),
      [['ERROR', detail]],
    );
  });
  it('answers a matching If-Match with 200', () => assertWhole({ 'if-match': etag }, 'If-Match'));
  it('answers an earlier If-Unmodified-Since with a 412 problem', async () => {
    const res = await send(service.url, 'GET', '/static/hello.txt', { 'if-unmodified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' });
    assert.equal(res.status, 412);
    assert.equal(res.headers['content-type'], 'text/html; charset=UTF-8', 'HTML without Accept, like every problem');
    assert.equal(res.headers['x-robots-tag'], 'none');
    assert.match(res.body, /Precondition Failed/);
  });
});

describe('static files: Last-Modified in the future', () => {
  it('sends the Date as Last-Modified when the file is modified in 2030, and keeps the ETag', async () => {
    const first = await send(service.url, 'GET', '/static/future.txt');
    assert.equal(first.status, 200);
    assert.equal(first.headers['last-modified'], first.headers.date, 'Last-Modified is the Date');
    const mtimeNs = BigInt(FUTURE.getTime()) * 1_000_000n;
    assert.equal(first.headers.etag, `"${first.body.length.toString(16)}-${mtimeNs.toString(16)}"`, 'the ETag keeps the real mtime');
  });

  it('evaluates If-Modified-Since and If-Unmodified-Since against that Date', async () => {
    const soon = new Date(Date.now() + 5_000).toUTCString();
    const notModified = await send(service.url, 'GET', '/static/future.txt', { 'if-modified-since': soon });
    assert.equal(notModified.status, 304, 'If-Modified-Since a few seconds ahead');
    const unmodified = await send(service.url, 'GET', '/static/future.txt', { 'if-unmodified-since': soon });
    assert.equal(unmodified.status, 200, 'If-Unmodified-Since a few seconds ahead');
  });
});

describe('static files: ranges', () => {
  async function assertPartial(range: string, body: string, contentRange: string, extra: Record<string, string> = {}): Promise<void> {
    const res = await send(service.url, 'GET', '/static/hello.txt', { range, ...extra });
    assert.equal(res.status, 206, range);
    assert.equal(res.body, body, range);
    assert.equal(res.headers['content-range'], contentRange, range);
    assert.equal(res.headers['content-length'], String(body.length), range);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', range);
  }

  async function assertWhole(headers: Record<string, string>, name: string): Promise<void> {
    const res = await send(service.url, 'GET', '/static/hello.txt', headers);
    assert.equal(res.status, 200, name);
    assert.equal(res.body, HELLO, name);
    assert.equal(res.headers['content-range'], undefined, name);
  }

  async function assertUnsatisfiable(range: string, path = '/static/hello.txt', size = HELLO.length): Promise<void> {
    const res = await send(service.url, 'GET', path, { ...JSON_ACCEPT, range });
    assert.equal(res.status, 416, range);
    assert.equal(res.headers['content-range'], `bytes */${size}`, range);
    assert.equal(res.headers['cache-control'], 'no-cache, private', range);
    assert.equal(res.headers['x-robots-tag'], 'none', range);
    const problem = problemOf(res, range);
    assert.equal(problem.title, 'Range Not Satisfiable', range);
    assert.equal(problem.detail, `The range "${range}" cannot be satisfied for "${path}" of ${size} bytes.`, range);
  }

  it('answers bytes=a-b with 206 and Content-Range', () => assertPartial('bytes=0-4', 'hello', 'bytes 0-4/13'));
  it('answers bytes=a- with the rest of the file', () => assertPartial('bytes=7-', 'world\n', 'bytes 7-12/13'));
  it('answers bytes=-n with the last n bytes', () => assertPartial('bytes=-6', 'world\n', 'bytes 7-12/13'));
  it('clamps a last byte past the end', () => assertPartial('bytes=7-1000', 'world\n', 'bytes 7-12/13'));
  it('answers a suffix longer than the file with all of it as 206', () => assertPartial('bytes=-1000', HELLO, 'bytes 0-12/13'));
  it('answers a first byte past the end with 416 and bytes */N', () => assertUnsatisfiable('bytes=13-'));
  it('answers bytes=-0 with 416', () => assertUnsatisfiable('bytes=-0'));
  it('answers a range of an empty file with 416 and bytes */0', () => assertUnsatisfiable('bytes=0-', '/static/empty.txt', 0));
  it('logs a 416 as request.ERROR and cuts a long Range to 200 characters in the problem', async () => {
    service.log.clear();
    const range = `bytes=${'9'.repeat(8 * 1024)}-`;
    const res = await send(service.url, 'GET', '/static/hello.txt', { ...JSON_ACCEPT, range });
    assert.equal(res.status, 416);
    const detail = `The range "${range.slice(0, 200)}…" cannot be satisfied for "/static/hello.txt" of 13 bytes.`;
    assert.equal(problemOf(res, 'long range').detail, detail);
    assert.deepEqual(
      service.log.lines.filter((l) => l.channel === 'request').map((l) => [l.level, l.message]),
      [['ERROR', detail]],
    );
  });
  it('answers several ranges with the whole file', () => assertWhole({ range: 'bytes=0-1,3-4' }, 'two ranges'));
  it('answers a malformed range with the whole file', () => assertWhole({ range: 'bytes=x-y' }, 'malformed'));
  it('answers last-before-first with the whole file', () => assertWhole({ range: 'bytes=5-1' }, 'reversed'));
  it('answers another unit with the whole file', () => assertWhole({ range: 'lines=0-1' }, 'other unit'));

  it('applies a range when If-Range carries the current strong ETag', async () => {
    const etag = (await send(service.url, 'HEAD', '/static/hello.txt')).headers.etag ?? '';
    await assertPartial('bytes=0-4', 'hello', 'bytes 0-4/13', { 'if-range': etag });
  });
  it('sends the whole file when If-Range carries a weak ETag', async () => {
    const etag = (await send(service.url, 'HEAD', '/static/hello.txt')).headers.etag ?? '';
    await assertWhole({ range: 'bytes=0-4', 'if-range': `W/${etag}` }, 'weak If-Range');
  });
  it('sends the whole file when If-Range carries another ETag', () => assertWhole({ range: 'bytes=0-4', 'if-range': '"old"' }, 'other If-Range'));
  it('applies a range when If-Range is exactly Last-Modified', () => assertPartial('bytes=0-4', 'hello', 'bytes 0-4/13', { 'if-range': LAST_MODIFIED }));
  it('sends the whole file when If-Range is another date', () =>
    assertWhole({ range: 'bytes=0-4', 'if-range': 'Wed, 03 Jan 2024 00:00:00 GMT' }, 'date If-Range'));

  it('ignores Range on HEAD: 200 with the whole length', async () => {
    const res = await send(service.url, 'HEAD', '/static/hello.txt', { range: 'bytes=0-4' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-length'], String(HELLO.length));
  });

  it('serves a range from the middle of a 256 MiB file', async () => {
    const res = await send(service.url, 'GET', '/static/big.bin', { range: `bytes=${BIG_SIZE - 10}-` });
    assert.equal(res.status, 206);
    assert.equal(res.headers['content-range'], `bytes ${BIG_SIZE - 10}-${BIG_SIZE - 1}/${BIG_SIZE}`);
    assert.equal(res.body, '\0'.repeat(10));
  });
});

describe('static files: streaming', () => {
  it('streams a file larger than one read byte for byte', async () => {
    const res = await getBytes('/static/medium.bin');
    assert.equal(res.status, 200, 'status');
    assert.ok(res.body.equals(MEDIUM), 'the body differs from the file');
  });

  it('streams a range larger than one read byte for byte', async () => {
    const res = await getBytes('/static/medium.bin', { range: 'bytes=50000-179999' });
    assert.equal(res.status, 206, 'status');
    assert.ok(res.body.equals(MEDIUM.subarray(50_000, 180_000)), 'the body differs from the range');
  });

  it('sends a range within one read byte for byte', async () => {
    const res = await getBytes('/static/medium.bin', { range: 'bytes=-1000' });
    assert.equal(res.status, 206, 'status');
    assert.ok(res.body.equals(MEDIUM.subarray(MEDIUM.length - 1000)), 'the body differs from the suffix');
  });

  it('streams a 256 MiB file to a slow reader with bounded memory', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const url = new URL(service.url);
    let received = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ host: url.hostname, port: url.port, path: '/static/big.bin', agent: false }, (res) => {
          assert.equal(res.statusCode, 200, 'status');
          assert.equal(res.headers['content-length'], String(BIG_SIZE), 'content-length');
          // Read nothing for a while: a server without back-pressure would buffer the file now.
          res.pause();
          setTimeout(() => res.resume(), 800);
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.on('error', reject);
      });
    } finally {
      clearInterval(sample);
    }
    assert.equal(received, BIG_SIZE, 'every byte arrived');
    const growth = (peak - before) / MiB;
    assert.ok(growth < 96, `RSS grew by ${growth.toFixed(1)} MiB while streaming 256 MiB`);
  });

  it('closes the file when the client goes away mid-file (no descriptor leak)', async () => {
    service.log.clear();
    const big = await realpath(join(publicDir, 'big.bin'));
    assert.equal(await openFdsOn(big), 0, 'no descriptor on big.bin before');
    let during = 0;
    const url = new URL(service.url);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write('GET /static/big.bin HTTP/1.1\r\nHost: a\r\n\r\n');
      });
      let seen = 0;
      socket.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > 1024 * 1024 && !socket.destroyed) {
          void openFdsOn(big).then((n) => {
            during = n;
            socket.destroy();
            resolve();
          }, reject);
        }
      });
      socket.on('error', reject);
    });
    assert.equal(during, 1, 'one descriptor on big.bin while streaming');
    const closed = await waitFor(async () => (await openFdsOn(big)) === 0, 10_000);
    assert.ok(closed, `${await openFdsOn(big)} descriptor(s) still open on big.bin after the client left`);
    assert.ok(!service.log.lines.some((l) => l.level === 'CRITICAL'), 'a client going away is not an error');
    assert.equal((await send(service.url, 'GET', '/static/hello.txt')).status, 200, 'the service keeps serving');
  });

  it('closes the file after every kind of answer: 200, 206, 304, HEAD, 405, 412, 416', async () => {
    const big = await realpath(join(publicDir, 'big.bin'));
    const answers: [number, Record<string, string>, string][] = [
      [206, { range: 'bytes=0-9' }, 'GET'], // one read
      [206, { range: `bytes=0-${MiB - 1}` }, 'GET'], // streamed
      [304, { 'if-none-match': '*' }, 'GET'],
      [200, {}, 'HEAD'],
      [405, {}, 'DELETE'],
      [412, { 'if-match': '"old"' }, 'GET'],
      [416, { range: `bytes=${BIG_SIZE}-` }, 'GET'],
    ];
    for (const [status, headers, method] of answers) {
      const res = await send(service.url, method, '/static/big.bin', headers);
      assert.equal(res.status, status, `${method} ${JSON.stringify(headers)}`);
      // Descriptors are closed without holding up the answer, so give the close a moment;
      // plain descriptors are never closed by the garbage collector, so a leak stays visible.
      const closed = await waitFor(async () => (await openFdsOn(big)) === 0, 10_000);
      assert.ok(closed, `a descriptor still open after ${method} ${JSON.stringify(headers)} (${status})`);
    }
  });
});

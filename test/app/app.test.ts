import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemOf, send, sendRaw, statusOf } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/service.js';

const JSON_ACCEPT = { accept: 'application/problem+json' };
const ALLOW_ROOT = 'OPTIONS, GET, HEAD';
const SEED_NOT_FOUND = [
  '/robots.txt', '/favicon.ico', '/security.txt', '/.well-known/security.txt',
  '/doc/1.0/negotiation', '/doc/1.0/ratelimit', '/doc/1.0/lock', '/api/user/reg',
];


const service = await startTestService();

describe('GET, HEAD and OPTIONS on /', () => {
  it('answers GET / with the entry-point document as JSON for API clients', async () => {
    const res = await send(service.url, 'GET', '/', { accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers.vary, 'Accept');
    const doc = JSON.parse(res.body);
    assert.equal(doc.name, 'problem-service');
    assert.equal(doc.version, '1.0');
    assert.deepEqual(doc.links, {
      doc: `${service.url}/doc/`,
      problem: `${service.url}/problem/`,
      schema: `${service.url}/schema/`,
      service: `${service.url}/api/`,
      static: `${service.url}/static/`,
    });
    assert.ok(!res.body.includes('admin'), 'the admin namespace is never linked');
  });

  it('answers GET / with an HTML page for browsers', async () => {
    const res = await send(service.url, 'GET', '/', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=UTF-8');
    assert.match(res.body, /<h1>problem-service<\/h1>/);
    assert.match(res.body, new RegExp(`<a href="${service.url}/static/">`));
  });

  it('treats /?q=1 as /', async () => {
    const res = await send(service.url, 'GET', '/?q=1');
    assert.equal(res.status, 200);
  });

  it('answers HEAD / with the GET headers, Content-Length included, and no body', async () => {
    const get = await send(service.url, 'GET', '/', { accept: 'application/json' });
    const head = await send(service.url, 'HEAD', '/', { accept: 'application/json' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-type'], get.headers['content-type']);
    assert.equal(head.headers['content-length'], get.headers['content-length']);
    assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)));
  });

  it('answers OPTIONS / with 204, the Allow list and no body', async () => {
    const res = await send(service.url, 'OPTIONS', '/');
    assert.equal(res.status, 204);
    assert.equal(res.headers.allow, ALLOW_ROOT);
    assert.equal(res.body, '');
  });
});

describe('405 on /', () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND']) {
    it(`answers ${method} / with 405, Allow and the observed message`, async () => {
      const res = await send(service.url, method, '/', JSON_ACCEPT);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, ALLOW_ROOT, method);
      assert.equal(res.headers['cache-control'], 'no-cache, private', method);
      assert.equal(res.headers['x-robots-tag'], 'none', method);
      const p = problemOf(res);
      assert.deepEqual(p, {
        type: 'about:blank',
        title: 'Method Not Allowed',
        status: 405,
        detail: `No route found for "${method} /": Method Not Allowed (Allow: ${ALLOW_ROOT})`,
        instance: '/',
      });
    });
  }

  it('never adds the Referer to a 405 message', async () => {
    const res = await send(service.url, 'DELETE', '/', { ...JSON_ACCEPT, referer: 'https://e.org/' });
    assert.equal(problemOf(res).detail, `No route found for "DELETE /": Method Not Allowed (Allow: ${ALLOW_ROOT})`);
  });

  it('logs a 405 as request.ERROR with the message and no incident', async () => {
    service.log.clear();
    await send(service.url, 'PUT', '/');
    assert.deepEqual(service.log.lines, [
      { channel: 'request', level: 'ERROR', message: `No route found for "PUT /": Method Not Allowed (Allow: ${ALLOW_ROOT})` },
    ]);
  });
});

describe('404 on every other path', () => {
  for (const path of SEED_NOT_FOUND) {
    for (const method of ['GET', 'POST']) {
      it(`answers ${method} ${path} with 404 No route found`, async () => {
        const res = await send(service.url, method, path, JSON_ACCEPT);
        assert.equal(res.status, 404);
        const p = problemOf(res);
        assert.equal(p.title, 'Not Found');
        assert.equal(p.status, 404);
        assert.equal(p.detail, `No route found for "${method} ${path}"`);
        assert.equal(p.instance, path);
      });
    }
  }

  it('a TRACE on a path that is not routed is a 404 like any other method', async () => {
    const res = await send(service.url, 'TRACE', '/x', JSON_ACCEPT);
    assert.equal(res.status, 404);
    assert.equal(problemOf(res).detail, 'No route found for "TRACE /x"');
  });

  const rawPaths: [string, string][] = [
    ['//x', '//x'],
    ['/%2e%2e/x', '/%2e%2e/x'],
    ['/X', '/X'],
    ['/x;a=1', '/x;a=1'],
    ['/%zz', '/%zz'],
    ['/%2F', '/%2F'],
    ['/a%20b/c?x=1&y=%22', '/a%20b/c'],
    ['/x/', '/x/'],
    ['/caf%C3%A9', '/caf%C3%A9'],
    ['/%C0%AE%C0%AE/', '/%C0%AE%C0%AE/'],
  ];
  for (const [target, shown] of rawPaths) {
    it(`shows the path of ${target} exactly as sent`, async () => {
      const res = await send(service.url, 'GET', target, JSON_ACCEPT);
      assert.equal(res.status, 404, target);
      assert.equal(problemOf(res).detail, `No route found for "GET ${shown}"`, target);
    });
  }

  it('drops a fragment from the message', async () => {
    const raw = await sendRaw(service.url, 'GET /x#frag HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(raw), 404);
    assert.match(raw, /No route found for \\"GET \/x\\""/);
  });

  it('uses the path of an absolute-form target', async () => {
    const raw = await sendRaw(service.url, 'GET http://other.example/x?y=1 HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(raw), 404);
    assert.match(raw, /No route found for \\"GET \/x\\""/);
  });

  it('routes an absolute-form target for / to the entry point', async () => {
    const raw = await sendRaw(service.url, 'GET http://other.example HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(raw), 200);
  });

  it('answers OPTIONS * with 404 for path *', async () => {
    const raw = await sendRaw(service.url, 'OPTIONS * HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(raw), 404);
    assert.match(raw, /No route found for \\"OPTIONS \*\\""/);
  });

  it('answers a long path (8,000 characters) with a 404 naming it', async () => {
    const path = `/${'a'.repeat(7_999)}`;
    const res = await send(service.url, 'GET', path, JSON_ACCEPT);
    assert.equal(res.status, 404);
    assert.equal(problemOf(res).detail, `No route found for "GET ${path}"`);
  });

  it('lets Node answer a path over its header limit with 431 and keeps serving', async () => {
    const raw = await sendRaw(service.url, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    assert.equal(statusOf(raw), 431);
    assert.equal((await send(service.url, 'GET', '/')).status, 200);
  });

  it('appends (from "<referer>") verbatim when a Referer is sent', async () => {
    const ref = 'https://example.org/page?q=1';
    const res = await send(service.url, 'GET', '/robots.txt', { ...JSON_ACCEPT, referer: ref });
    assert.equal(problemOf(res).detail, `No route found for "GET /robots.txt" (from "${ref}")`);
  });

  it('lists Referer in Vary on a JSON 404, whose message carries the Referer, with or without one sent', async () => {
    const ref = 'https://shop.example/account?email=a%40b.example&reset_token=t0k3n';
    const withReferer = await send(service.url, 'GET', '/x', { ...JSON_ACCEPT, referer: ref });
    assert.equal(problemOf(withReferer).detail, `No route found for "GET /x" (from "${ref}")`);
    assert.equal(withReferer.headers['cache-control'], 'immutable, max-age=31536000, public');
    assert.equal(withReferer.headers.vary, 'Accept, Referer');
    const without = await send(service.url, 'GET', '/x', JSON_ACCEPT);
    assert.equal(without.headers.vary, 'Accept, Referer');
  });

  it('keeps Vary: Accept on the plain HTML 404 and on a JSON 405, which never show the Referer', async () => {
    const html = await send(service.url, 'GET', '/x', { referer: 'https://e.org/?token=t0k3n' });
    assert.ok(!html.body.includes('t0k3n'), 'the plain page shows the Referer');
    assert.equal(html.headers.vary, 'Accept');
    const notAllowed = await send(service.url, 'PUT', '/', { ...JSON_ACCEPT, referer: 'https://e.org/' });
    assert.equal(notAllowed.status, 405);
    assert.equal(notAllowed.headers.vary, 'Accept');
  });

  it('keeps quotes of a Referer verbatim in JSON', async () => {
    const ref = 'https://e.org/"quoted"';
    const res = await send(service.url, 'GET', '/x', { ...JSON_ACCEPT, referer: ref });
    assert.equal(problemOf(res).detail, `No route found for "GET /x" (from "${ref}")`);
  });

  it('carries the observed 404 headers, expires one year after date', async () => {
    const res = await send(service.url, 'GET', '/doc/1.0/ratelimit');
    assert.equal(res.headers['cache-control'], 'immutable, max-age=31536000, public');
    assert.equal(res.headers['x-robots-tag'], 'none');
    assert.equal(res.headers['content-type'], 'text/html; charset=UTF-8');
    assert.equal(res.headers.vary, 'Accept');
    const date = Date.parse(String(res.headers.date));
    assert.equal(Date.parse(String(res.headers.expires)) - date, 31_536_000_000);
  });

  it('gives the type from the parent segment, about:blank without one', async () => {
    const typeOf = async (path: string) => problemOf(await send(service.url, 'GET', path, JSON_ACCEPT)).type;
    assert.equal(await typeOf('/doc/1.0/lock'), `${service.url}/problem/1.0`);
    assert.equal(await typeOf('/.well-known/security.txt'), `${service.url}/problem/.well-known`);
    assert.equal(await typeOf('/robots.txt'), 'about:blank');
    assert.equal(await typeOf('/a/b/c/'), `${service.url}/problem/c`);
    assert.equal(await typeOf('//x'), 'about:blank');
  });

  it('logs a 404 as request.ERROR, then the incident when the type is not about:blank', async () => {
    service.log.clear();
    await send(service.url, 'GET', '/doc/1.0/lock');
    await send(service.url, 'GET', '/robots.txt');
    assert.deepEqual(service.log.lines, [
      { channel: 'request', level: 'ERROR', message: 'No route found for "GET /doc/1.0/lock"' },
      { channel: 'app', level: 'ERROR', message: `Incident: - Type: ${service.url}/problem/1.0 - Cause: 404 - Title: Not Found` },
      { channel: 'request', level: 'ERROR', message: 'No route found for "GET /robots.txt"' },
    ]);
  });
});

describe('method tunneling with X-HTTP-Method', () => {
  it('routes POST / with X-HTTP-Method: DELETE as DELETE', async () => {
    const res = await send(service.url, 'POST', '/', { ...JSON_ACCEPT, 'x-http-method': 'DELETE' });
    assert.equal(res.status, 405);
    assert.equal(problemOf(res).detail, `No route found for "DELETE /": Method Not Allowed (Allow: ${ALLOW_ROOT})`);
  });

  it('upper-cases the override: POST / with get is a GET', async () => {
    const res = await send(service.url, 'POST', '/', { 'x-http-method': 'get', accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).name, 'problem-service');
  });

  it('answers a tunneled OPTIONS with 204 and Allow', async () => {
    const res = await send(service.url, 'POST', '/', { 'x-http-method': 'options' });
    assert.equal(res.status, 204);
    assert.equal(res.headers.allow, ALLOW_ROOT);
  });

  it('ignores the header on a GET', async () => {
    const res = await send(service.url, 'GET', '/', { 'x-http-method': 'DELETE' });
    assert.equal(res.status, 200);
  });

  it('ignores the header on a PUT', async () => {
    const res = await send(service.url, 'PUT', '/x', { ...JSON_ACCEPT, 'x-http-method': 'GET' });
    assert.equal(problemOf(res).detail, 'No route found for "PUT /x"');
  });

  it('names the tunneled method in a 404', async () => {
    const res = await send(service.url, 'POST', '/nowhere', { ...JSON_ACCEPT, 'x-http-method': 'PUT' });
    assert.equal(res.status, 404);
    assert.equal(problemOf(res).detail, 'No route found for "PUT /nowhere"');
  });

  it('ignores an empty override', async () => {
    const res = await send(service.url, 'POST', '/', { ...JSON_ACCEPT, 'x-http-method': '' });
    assert.equal(problemOf(res).detail, `No route found for "POST /": Method Not Allowed (Allow: ${ALLOW_ROOT})`);
  });

  for (const value of ['DEL-ETE', 'GET1', 'G E T', 'GET,PUT']) {
    it(`answers 400 Invalid HTTP method override. to X-HTTP-Method: ${value}`, async () => {
      const res = await send(service.url, 'POST', '/', { ...JSON_ACCEPT, 'x-http-method': value });
      assert.equal(res.status, 400, value);
      assert.equal(res.headers['cache-control'], 'no-cache, private', value);
      assert.equal(problemOf(res).detail, 'Invalid HTTP method override.', value);
    });
  }
});

describe('negotiation of problem documents', () => {
  const cases: [string | undefined, 'json' | 'html'][] = [
    [undefined, 'html'],
    ['*/*', 'html'],
    ['text/html', 'html'],
    ['application/json', 'json'],
    ['application/problem+json', 'json'],
    ['application/vnd.api+json', 'json'],
    ['application/*', 'json'],
    ['text/html;q=0.9, application/json', 'json'],
    ['application/json;q=0.5, text/html', 'html'],
    ['text/*, application/json;q=0.8', 'html'],
    ['application/json;q=0, */*', 'html'],
    ['garbage, ;;;, /', 'html'],
    ['image/png', 'html'],
  ];
  for (const [accept, expected] of cases) {
    it(`answers Accept: ${accept ?? '(none)'} with ${expected}`, async () => {
      const res = await send(service.url, 'GET', '/x', accept === undefined ? {} : { accept });
      const wanted = expected === 'json' ? 'application/problem+json' : 'text/html; charset=UTF-8';
      assert.equal(res.headers['content-type'], wanted, `Accept: ${accept}`);
      assert.equal(res.headers.vary, expected === 'json' ? 'Accept, Referer' : 'Accept');
    });
  }

  it('negotiates an unmatched path under SERVICE_BASE like any other (zone false, as observed)', async () => {
    const html = await send(service.url, 'GET', '/api/user/reg', { accept: 'text/html' });
    assert.equal(html.headers['content-type'], 'text/html; charset=UTF-8');
    const none = await send(service.url, 'GET', '/api/user/reg');
    assert.equal(none.headers['content-type'], 'text/html; charset=UTF-8');
    const json = await send(service.url, 'GET', '/api/user/reg', { accept: 'application/json' });
    assert.equal(json.headers['content-type'], 'application/problem+json');
  });
});

describe('the HTML error page', () => {
  it('shows only status and title when debug is off', async () => {
    const res = await send(service.url, 'GET', '/secret-path', { referer: 'https://e.org/' });
    assert.match(res.body, /<title>404 Not Found<\/title>/);
    assert.ok(!res.body.includes('secret-path'), 'the prod page shows the path');
  });

  it('shows the message, the request and escapes everything when debug is on', async () => {
    const dev = await startTestService({ APP_ENV: 'dev', APP_DEBUG: '1' });
    const res = await send(dev.url, 'GET', '/x?a=%3Cb%3E', { referer: 'https://e.org/"><script>alert(1)</script>' });
    assert.equal(res.status, 404);
    assert.ok(!res.body.includes('<script>alert(1)</script>'), 'the referer reached the page unescaped');
    assert.ok(
      res.body.includes('No route found for &quot;GET /x&quot; (from &quot;https://e.org/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;)'),
      'the escaped message is on the page',
    );
    assert.ok(res.body.includes('<dd>/x?a=%3Cb%3E</dd>'), 'the target is shown');
    // The page shows the client's address and a link to this request's own profile: no header names them.
    assert.equal(res.headers.vary, '*');
  });
});

describe('trusted proxies', () => {
  it('ignores X-Forwarded-Proto from an untrusted peer', async () => {
    const res = await send(service.url, 'GET', '/doc/1.0/x', { ...JSON_ACCEPT, 'x-forwarded-proto': 'https' });
    assert.equal(problemOf(res).type, `${service.url}/problem/1.0`);
  });

  it('honours X-Forwarded-Proto and X-Forwarded-For from a trusted peer', async () => {
    const proxied = await startTestService({ TRUSTED_PROXIES: '127.0.0.1', APP_DEBUG: '1' });
    const res = await send(proxied.url, 'GET', '/doc/1.0/x', {
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '203.0.113.9, 127.0.0.1',
      host: 'api.example.org',
    });
    assert.ok(res.body.includes('<dt>client</dt><dd>203.0.113.9</dd>'), 'client IP is the right-most untrusted hop');
    const json = await send(proxied.url, 'GET', '/doc/1.0/x', { ...JSON_ACCEPT, 'x-forwarded-proto': 'https', host: 'api.example.org' });
    assert.equal(problemOf(json).type, 'https://api.example.org/problem/1.0');
  });

  it('keeps the peer as client when X-Forwarded-For comes from an untrusted peer', async () => {
    const dev = await startTestService({ TRUSTED_PROXIES: '10.0.0.0/8', APP_DEBUG: '1' });
    const res = await send(dev.url, 'GET', '/x', { 'x-forwarded-for': '203.0.113.9' });
    assert.ok(res.body.includes('<dt>client</dt><dd>127.0.0.1</dd>'), 'spoofed client IP was believed');
  });
});

describe('Host validation', () => {
  it('answers 400 Invalid Host to a Host with characters outside [a-z0-9.-]', async () => {
    const res = await send(service.url, 'GET', '/', { ...JSON_ACCEPT, host: 'evil_host.example' });
    assert.equal(res.status, 400);
    const p = problemOf(res);
    assert.equal(p.detail, 'Invalid Host "evil_host.example".');
  });

  it('accepts a bracketed IPv6 Host with a port', async () => {
    const res = await send(service.url, 'GET', '/', { host: '[::1]:8080', accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).links.doc, 'http://[::1]:8080/doc/');
  });

  it('answers 400 Untrusted Host when TRUSTED_HOSTS does not list it, and never links it', async () => {
    const strict = await startTestService({ TRUSTED_HOSTS: 'api.example.org,*.example.net' });
    const bad = await send(strict.url, 'GET', '/doc/1.0/x', { ...JSON_ACCEPT, host: 'evil.example.com' });
    assert.equal(bad.status, 400);
    const p = problemOf(bad);
    assert.equal(p.detail, 'Untrusted Host "evil.example.com".');
    assert.ok(!String(p.type).includes('evil'), `type ${p.type} names the untrusted host`);
    const listed = await send(strict.url, 'GET', '/', { host: 'api.example.org:443', accept: 'application/json' });
    assert.equal(listed.status, 200);
    const wildcard = await send(strict.url, 'GET', '/', { host: 'eu.example.net' });
    assert.equal(wildcard.status, 200);
  });

  it('uses BASE_URL for links whatever the Host', async () => {
    const fixed = await startTestService({ BASE_URL: 'https://api.example.com' });
    const res = await send(fixed.url, 'GET', '/', { accept: 'application/json', host: 'other.example' });
    assert.equal(JSON.parse(res.body).links.doc, 'https://api.example.com/doc/');
  });

  it('uses a namespace given as an absolute URL as it is', async () => {
    const fixed = await startTestService({ PROBLEM_BASE: 'https://problems.example.com/p/' });
    const res = await send(fixed.url, 'GET', '/doc/1.0/x', JSON_ACCEPT);
    assert.equal(problemOf(res).type, 'https://problems.example.com/p/1.0');
  });
});

describe('unexpected errors', () => {
  it('answers 500 with a generic problem in prod and logs the stack at CRITICAL', async () => {
    const broken = await startTestServiceWithBrokenDocument({});
    const res = await send(broken.url, 'GET', '/', { accept: 'application/json' });
    assert.equal(res.status, 500);
    const p = problemOf(res);
    assert.equal(p.title, 'Internal Server Error');
    assert.equal(p.detail, 'The server could not answer this request.');
    assert.ok(!res.body.includes('disk on fire'), 'the message leaked');
    assert.ok(!res.body.includes('at '), 'a stack leaked');
    assert.equal(res.headers['cache-control'], 'no-cache, private');
    const line = broken.log.lines.find((l) => l.level === 'CRITICAL');
    assert.ok(line !== undefined, 'no CRITICAL line');
    assert.equal(line.channel, 'request');
    assert.match(line.message, /^Uncaught Error: "disk on fire" Error: disk on fire\n {4}at /);
    assert.equal((await send(broken.url, 'GET', '/x')).status, 404, 'the service keeps serving');
  });

  it('shows the message in debug mode', async () => {
    const broken = await startTestServiceWithBrokenDocument({ APP_DEBUG: '1' });
    const res = await send(broken.url, 'GET', '/', JSON_ACCEPT);
    assert.equal(problemOf(res).detail, 'disk on fire');
  });
});

describe('malformed requests', () => {
  const garbage: [string, string][] = [
    ['a lower-case method', 'get / HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a broken request line', 'GARBAGE\r\n\r\n'],
    ['a header without colon', 'GET / HTTP/1.1\r\nHost a\r\n\r\n'],
    ['a NUL in the target', 'GET /\0x HTTP/1.1\r\nHost: a\r\n\r\n'],
  ];
  for (const [name, text] of garbage) {
    it(`answers ${name} with 400 and keeps serving`, async () => {
      const raw = await sendRaw(service.url, text);
      assert.equal(statusOf(raw), 400, name);
      assert.equal((await send(service.url, 'GET', '/')).status, 200, name);
    });
  }
});

function startTestServiceWithBrokenDocument(vars: Record<string, string>): Promise<TestService> {
  return startTestService(vars, {
    serviceDocument: () => {
      throw new Error('disk on fire');
    },
  });
}

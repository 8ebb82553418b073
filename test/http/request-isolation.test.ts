/**
 * What one request decides never leaks into another's answer: two services in one process judge
 * Host each by its own TRUSTED_HOSTS, and one Host reached over http then https links each
 * request by its own scheme (docs/http.md, "Routing and errors"). A memo kept across requests must key on all of these.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemOf, send } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const JSON_ACCEPT = { accept: 'application/json' };

describe('two services in one process', () => {
  it('judge the same Host each by its own TRUSTED_HOSTS, whichever answered last', async () => {
    const first = await startTestService({ TRUSTED_HOSTS: 'first.example' });
    const second = await startTestService({ TRUSTED_HOSTS: 'second.example' });
    const asked = [
      ['first', first.url, 'first.example', 200],
      ['second', second.url, 'first.example', 400],
      ['second', second.url, 'second.example', 200],
      ['first', first.url, 'second.example', 400],
      ['first', first.url, 'first.example', 200],
    ] as const;
    for (const [name, url, host, status] of asked) {
      const res = await send(url, 'GET', '/', { ...JSON_ACCEPT, host });
      assert.equal(res.status, status, `the ${name} service answered Host ${host} with ${res.status}`);
      if (status === 400) assert.equal(problemOf(res).detail, `Untrusted Host "${host}".`);
      else assert.equal(JSON.parse(res.body).links.doc, `http://${host}/doc/`);
    }
  });
});

describe('one Host over http, then https through a trusted proxy', () => {
  it('links each request by its own scheme, in the problem type and in the entry point', async () => {
    const proxied = await startTestService({ TRUSTED_PROXIES: '127.0.0.1' });
    const host = 'api.example.org';
    const plain = await send(proxied.url, 'GET', '/doc/1.0/x', { ...JSON_ACCEPT, host });
    assert.equal(problemOf(plain).type, 'http://api.example.org/problem/1.0');
    const secure = await send(proxied.url, 'GET', '/doc/1.0/x', { ...JSON_ACCEPT, host, 'x-forwarded-proto': 'https' });
    assert.equal(problemOf(secure).type, 'https://api.example.org/problem/1.0');

    const plainRoot = await send(proxied.url, 'GET', '/', { ...JSON_ACCEPT, host });
    assert.equal(JSON.parse(plainRoot.body).links.problem, 'http://api.example.org/problem/');
    const secureRoot = await send(proxied.url, 'GET', '/', { ...JSON_ACCEPT, host, 'x-forwarded-proto': 'https' });
    assert.equal(JSON.parse(secureRoot.body).links.problem, 'https://api.example.org/problem/');
    const plainAgain = await send(proxied.url, 'GET', '/', { ...JSON_ACCEPT, host });
    assert.equal(JSON.parse(plainAgain.body).links.problem, 'http://api.example.org/problem/');
  });
});

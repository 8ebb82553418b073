/**
 * REDIRECT_PORT (docs/deployment.md, "HTTPS without a proxy"): plain HTTP answered with 308 to the same
 * target on https://, and nothing else served.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTrustedHosts } from '../../src/config/index.js';
import { redirectLocation } from '../../src/http/redirect.js';
import { send, sendRaw } from '../helpers/http.js';
import { requestHttp1, TLS_SETTINGS } from '../helpers/https.js';
import { startTestService } from '../helpers/service.js';

const target = { httpsPort: 8443, baseUrl: undefined, trustedHosts: undefined };
const locate = (url: string, host: string | undefined, over = {}) => redirectLocation({ url, headers: host === undefined ? {} : { host } }, { ...target, ...over });

describe('redirectLocation', () => {
  it('keeps the path and query, drops the port the client used and names the HTTPS port', () => {
    assert.equal(locate('/a/b?c=1&d', 'example.com:8080'), 'https://example.com:8443/a/b?c=1&d');
    assert.equal(locate('/', 'Example.COM'), 'https://example.com:8443/');
    assert.equal(locate('/x', '[::1]:80'), 'https://[::1]:8443/x');
  });

  it('leaves the port out when it is 443', () => {
    assert.equal(locate('/x', 'example.com', { httpsPort: 443 }), 'https://example.com/x');
  });

  it('uses BASE_URL, whatever Host says, when it is set', () => {
    assert.equal(locate('/x?y', 'evil.example', { baseUrl: 'https://api.example.com' }), 'https://api.example.com/x?y');
  });

  it('has nowhere to send a request without a usable Host, or with one TRUSTED_HOSTS refuses, or with a target that is not a path', () => {
    assert.equal(locate('/x', undefined), undefined);
    assert.equal(locate('/x', 'bad host'), undefined);
    assert.equal(locate('/x', `${'a'.repeat(250)}.example`), undefined);
    assert.equal(locate('/x', 'evil.example', { trustedHosts: parseTrustedHosts('^example\\.com$') }), undefined);
    assert.equal(locate('/x', 'example.com', { trustedHosts: parseTrustedHosts('^example\\.com$') }), 'https://example.com:8443/x');
    assert.equal(locate('*', 'example.com'), undefined);
    assert.equal(locate('http://example.com/x', 'example.com'), undefined);
  });
});

describe('the redirect listener', async () => {
  const service = await startTestService({ ...TLS_SETTINGS, REDIRECT_PORT: '0' });
  const redirect = service.redirectUrl!;
  const httpsPort = new URL(service.url).port;

  it('listens on plain HTTP and answers 308 to the HTTPS listener, for any method', async () => {
    assert.match(redirect, /^http:\/\/127\.0\.0\.1:\d+$/);
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
      const res = await send(redirect, method, '/a/b?c=1', { host: `localhost:${new URL(redirect).port}` });
      assert.equal(res.status, 308, method);
      assert.equal(res.headers.location, `https://localhost:${httpsPort}/a/b?c=1`, method);
      assert.equal(res.body, '');
    }
    const followed = await requestHttp1(`https://localhost:${httpsPort}`, 'GET', '/a/b?c=1', { accept: 'application/json' });
    assert.equal(followed.status, 404, 'where it points is the service');
  });

  it('answers 400 to a request with no Host, and closes a connection whose request has a body it never reads', async () => {
    const noHost = await sendRaw(redirect, 'GET / HTTP/1.0\r\n\r\n');
    assert.match(noHost, /^HTTP\/1\.1 400 /);
    const withBody = await sendRaw(redirect, 'POST /form HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello');
    assert.match(withBody, /^HTTP\/1\.1 308 /);
    assert.match(withBody, /\r\nConnection: close\r\n/i);
  });

  it('is not started without REDIRECT_PORT', async () => {
    const plain = await startTestService(TLS_SETTINGS);
    assert.equal(plain.redirectUrl, undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostnameOf, isValidHost, parseTrustedHosts } from '../src/hosts.js';

describe('isValidHost', () => {
  for (const host of ['example.org', 'example.org:8080', '127.0.0.1:80', '[::1]', '[2001:db8::1]:443', 'localhost']) {
    it(`accepts ${host}`, () => assert.equal(isValidHost(host), true, host));
  }
  for (const host of ['', 'ex_ample.org', 'a b', 'e.org:port', '[::1', 'e.org/x', 'e.org:123456', '"><script>']) {
    it(`refuses ${JSON.stringify(host)}`, () => assert.equal(isValidHost(host), false, host));
  }
});

describe('hostnameOf', () => {
  it('drops the port', () => assert.equal(hostnameOf('example.org:8080'), 'example.org'));
  it('keeps IPv6 brackets', () => assert.equal(hostnameOf('[::1]:80'), '[::1]'));
});

describe('parseTrustedHosts', () => {
  it('gives no matcher for an empty list', () => assert.equal(parseTrustedHosts(' , '), undefined));
  it('matches exact names case-insensitively as given lower-cased', () => {
    const match = parseTrustedHosts('API.example.org')!;
    assert.equal(match('api.example.org'), true);
    assert.equal(match('xapi.example.org'), false);
  });
  it('matches subdomains of a wildcard and not the bare domain', () => {
    const match = parseTrustedHosts('*.example.org')!;
    assert.equal(match('a.example.org'), true);
    assert.equal(match('example.org'), false);
    assert.equal(match('evilexample.org'), false);
  });
  it('matches anchored patterns', () => {
    const match = parseTrustedHosts('^(www\\.)?example\\.org$')!;
    assert.equal(match('www.example.org'), true);
    assert.equal(match('www.example.org.evil.com'), false);
  });
  it('refuses an invalid pattern', () => assert.throws(() => parseTrustedHosts('^(['), /not a valid pattern/));
});

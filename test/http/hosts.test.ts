import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostnameOf } from '../../src/http/hosts.js';
import { isValidHost, backtrackingRisk, parseTrustedHosts } from '../../src/config/index.js';

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

describe('backtrackingRisk', () => {
  const refused: [string, RegExp][] = [
    ['^(a+)+$', /repeated group holds a repetition/],
    ['^(a|aa)*$', /repeated group holds a repetition or an alternation/],
    ['^((a+))+$', /repeated group/],
    ['^(a{1,5})+$', /repeated group/],
    ['^(\\w+\\.)*example\\.org$', /repeated group/],
    ['^.*.*.*.*$', /more than 3 unbounded repetitions/],
    ['^(a)\\1$', /back-reference/],
    ['^(?=a)a$', /lookaround/],
    ['^(?<!a)b$', /lookaround/],
  ];
  for (const [pattern, why] of refused) {
    it(`refuses ${pattern}`, () => assert.match(backtrackingRisk(pattern) ?? 'accepted', why, pattern));
  }
  const accepted = ['^(.+\\.)?example\\.com$', '^[a-z0-9-]+\\.example\\.(com|org)$', '^api-[0-9]+\\.[a-z]+\\.example\\.com$', '^(ab){2}$', '^a{2,}(c{2})+$', '^[(+*]+\\.x$'];
  for (const pattern of accepted) {
    it(`accepts ${pattern}`, () => assert.equal(backtrackingRisk(pattern), undefined, pattern));
  }
  it('makes parseTrustedHosts refuse ^(a+)+$ with a line that says why', () =>
    assert.throws(() => parseTrustedHosts('^(a+)+$'), /could take exponential time to match: a repeated group/));
});

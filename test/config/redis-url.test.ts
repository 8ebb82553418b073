import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeEndpoint, parseRedisUrl } from '../../src/redis/index.js';

describe('parseRedisUrl', () => {
  it('reads host and port, db 0 and no credentials by default', () => {
    assert.deepEqual(parseRedisUrl('redis://cache.internal'), { tls: false, host: 'cache.internal', port: 6379, username: undefined, password: undefined, db: 0 });
    assert.deepEqual(parseRedisUrl('redis://10.0.0.7:6380/'), { tls: false, host: '10.0.0.7', port: 6380, username: undefined, password: undefined, db: 0 });
  });

  it('reads rediss:// as TLS and the db from the path', () => {
    const endpoint = parseRedisUrl('rediss://redis.example:6390/15');
    assert.equal(endpoint.tls, true);
    assert.equal(endpoint.db, 15);
    assert.equal(parseRedisUrl('redis://h/2147483647').db, 2147483647);
  });

  it('reads an IPv6 host in brackets, without them', () => {
    assert.equal(parseRedisUrl('redis://[::1]:7000/1').host, '::1');
    assert.equal(parseRedisUrl('redis://[2001:db8::5]').port, 6379);
  });

  it('reads user and password, percent-decoded', () => {
    const endpoint = parseRedisUrl('redis://po%40ster:p%3Ass%2Fw%25rd:x@h:1/3');
    assert.equal(endpoint.username, 'po@ster');
    assert.equal(endpoint.password, 'p:ss/w%rd:x');
  });

  it('reads :password as the password of the default user', () => {
    const endpoint = parseRedisUrl('redis://:s3cret@h');
    assert.equal(endpoint.username, undefined);
    assert.equal(endpoint.password, 's3cret');
  });

  it('accepts the scheme in capitals (RFC 3986 3.1)', () => {
    assert.equal(parseRedisUrl('REDISS://h').tls, true);
  });

  const refused: readonly [string, string, RegExp][] = [
    ['another scheme', 'http://h:6379', /scheme must be redis:\/\/ or rediss:\/\//],
    ['no scheme', 'h:6379', /scheme/],
    ['no host', 'redis://:6379', /host is missing/],
    ['an empty text', '', /scheme/],
    ['a port of 0', 'redis://h:0', /port must be a number from 1 to 65535/],
    ['a port too large', 'redis://h:65536', /port/],
    ['an empty port', 'redis://h:', /port/],
    ['a signed port', 'redis://h:+1', /port/],
    ['a db that is not a number', 'redis://h/one', /database number/],
    ['a db of 2^31', 'redis://h/2147483648', /database number from 0 to 2147483647/],
    ['a negative db', 'redis://h/-1', /database number/],
    ['a db with a leading zero', 'redis://h/01', /database number/],
    ['a longer path', 'redis://h/1/2', /database number/],
    ['a query', 'redis://h/0?timeout=1', /no query/],
    ['a fragment', 'redis://h#x', /fragment/],
    ['a space', 'redis://h /0', /spaces/],
    ['an unbracketed IPv6', 'redis://::1:6379', /host/],
    ['a bracketed name', 'redis://[localhost]', /not an IPv6 address/],
    ['an unclosed bracket', 'redis://[::1', /closing \]/],
    ['junk after the brackets', 'redis://[::1]x', /only :port/],
    ['a backslash in the host', 'redis://h\\x', /host has a character/],
    ['credentials without a colon', 'redis://user@h', /user:password or :password/],
    ['an empty password', 'redis://user:@h', /password is empty/],
    ['a bad percent escape', 'redis://u:pa%zzss@h', /must start %XX/],
    ['a percent escape that is not UTF-8', 'redis://u:%ff@h', /does not decode to UTF-8/],
  ];
  for (const [name, text, message] of refused) {
    it(`refuses ${name}, naming REDIS_URL`, () => {
      assert.throws(() => parseRedisUrl(text), (err: Error) => {
        assert.match(err.message, /^REDIS_URL: /, name);
        assert.match(err.message, message, name);
        return true;
      });
    });
  }

  it('never echoes the password when it refuses', () => {
    for (const text of ['redis://u:hunter2@h:99999', 'redis://u:hunter2@h/x', 'redis://u:hunter2@h?x', 'redis://u:hunter2@@h', 'redis://u:hunter2%G0@h', 'ftp://u:hunter2@h']) {
      assert.throws(() => parseRedisUrl(text), (err: Error) => !err.message.includes('hunter2'), text);
    }
  });

  it('refuses a raw @ in the password, telling to percent-encode it', () => {
    assert.throws(() => parseRedisUrl('redis://u:p@ss@h'), /percent-encode/);
  });
});

describe('describeEndpoint', () => {
  it('names the endpoint without its password', () => {
    assert.equal(describeEndpoint(parseRedisUrl('rediss://app:hunter2@[::1]:7000/4')), 'rediss://app@[::1]:7000/4');
    assert.equal(describeEndpoint(parseRedisUrl('redis://:hunter2@h')), 'redis://h:6379/0');
  });
});

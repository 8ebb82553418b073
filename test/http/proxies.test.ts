import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTrustedPeer, resolveClientIp } from '../../src/http/proxies.js';
import { parseAddress, parseRange, parseTrustedProxies, rangeContains } from '../../src/config/index.js';

describe('parseAddress', () => {
  it('maps IPv4 into IPv6', () => {
    assert.deepEqual([...parseAddress('1.2.3.4')!], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
  });
  it('expands ::', () => {
    assert.deepEqual([...parseAddress('2001:db8::1')!], [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });
  it('reads an embedded IPv4 tail', () => assert.deepEqual(parseAddress('::ffff:1.2.3.4'), parseAddress('1.2.3.4')));
  it('ignores a zone id', () => assert.deepEqual(parseAddress('fe80::1%eth0'), parseAddress('fe80::1')));
  it('refuses what is not an address', () => {
    assert.equal(parseAddress('1.2.3'), undefined);
    assert.equal(parseAddress('example.org'), undefined);
  });
});

describe('ranges', () => {
  it('contains addresses inside a v4 CIDR and not outside', () => {
    const range = parseRange('172.16.0.0/12');
    assert.equal(rangeContains(range, parseAddress('172.31.255.255')!), true);
    assert.equal(rangeContains(range, parseAddress('172.32.0.0')!), false);
  });
  it('contains addresses inside a v6 CIDR', () => {
    const range = parseRange('2001:db8::/33');
    assert.equal(rangeContains(range, parseAddress('2001:db8:7fff::1')!), true);
    assert.equal(rangeContains(range, parseAddress('2001:db8:8000::1')!), false);
  });
  it('treats a bare address as a single host', () => {
    const range = parseRange('10.0.0.1');
    assert.equal(rangeContains(range, parseAddress('10.0.0.1')!), true);
    assert.equal(rangeContains(range, parseAddress('10.0.0.2')!), false);
  });
  it('refuses a prefix that is too long', () => assert.throws(() => parseRange('::/129'), /prefix length outside 0-128/));
  it('refuses garbage', () => assert.throws(() => parseRange('10.0.0.0/8/1'), /not an IP address or CIDR range/));
});

describe('resolveClientIp', () => {
  const proxies = parseTrustedProxies('10.0.0.0/8, 192.168.1.1');
  it('ignores X-Forwarded-For from an untrusted peer', () => {
    assert.equal(resolveClientIp(proxies, '203.0.113.1', '1.1.1.1'), '203.0.113.1');
  });
  it('takes the right-most untrusted address', () => {
    assert.equal(resolveClientIp(proxies, '10.0.0.5', '6.6.6.6, 198.51.100.7, 192.168.1.1'), '198.51.100.7');
  });
  it('takes the left-most when every hop is trusted', () => {
    assert.equal(resolveClientIp(proxies, '10.0.0.5', '10.1.1.1, 10.2.2.2'), '10.1.1.1');
  });
  it('stops at a malformed hop', () => {
    assert.equal(resolveClientIp(proxies, '10.0.0.5', '1.1.1.1, bogus, 10.2.2.2'), '10.2.2.2');
  });
  it('strips ports and brackets', () => {
    assert.equal(resolveClientIp(proxies, '10.0.0.5', '198.51.100.7:4711'), '198.51.100.7');
    assert.equal(resolveClientIp(proxies, '10.0.0.5', '[2001:db8::1]:4711'), '2001:db8::1');
  });
  it('trusts any peer with REMOTE_ADDR', () => {
    const any = parseTrustedProxies('REMOTE_ADDR');
    assert.equal(isTrustedPeer(any, '203.0.113.1'), true);
    assert.equal(resolveClientIp(any, '203.0.113.1', '198.51.100.7'), '198.51.100.7');
  });
  it('trusts loopback and private peers with private_ranges', () => {
    const priv = parseTrustedProxies('private_ranges');
    for (const peer of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.0.9', '::1', 'fd00::1']) {
      assert.equal(isTrustedPeer(priv, peer), true, peer);
    }
    assert.equal(isTrustedPeer(priv, '8.8.8.8'), false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProfileStore, newestOf, newToken, type Profile } from '../../src/profiler/profile.js';
import { maskText } from '../../src/config/secrets.js';

describe('maskText', () => {
  it('masks every occurrence of each secret', () => assert.equal(maskText('a hunter2 b hunter2', ['hunter2']), 'a ****** b ******'));
  it('ignores secrets too short to mask safely', () => assert.equal(maskText('abc', ['b']), 'abc'));
});

describe('newToken', () => {
  it('gives 6 lower-case hex characters not already taken', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const token = newToken((t) => taken.has(t));
      assert.match(token, /^[0-9a-f]{6}$/);
      assert.ok(!taken.has(token), 'a taken token was returned');
      taken.add(token);
    }
  });
});

describe('ProfileStore', () => {
  const profile = (token: string, method: string, rawPath: string, status: number, clientIp = '127.0.0.1') =>
    ({ token, method, rawPath, status, clientIp }) as unknown as Profile;

  it('keeps the newest max profiles', () => {
    const store = new ProfileStore(2);
    store.add(profile('aaaaaa', 'GET', '/', 200));
    store.add(profile('bbbbbb', 'GET', '/', 200));
    store.add(profile('cccccc', 'GET', '/', 200));
    assert.equal(store.get('aaaaaa'), undefined);
    assert.ok(store.has('bbbbbb') && store.has('cccccc'));
  });

  it('searches newest first by every criterion given', () => {
    const store = new ProfileStore(10);
    store.add(profile('000001', 'GET', '/a', 404));
    store.add(profile('000002', 'POST', '/a/b', 405));
    store.add(profile('000003', 'GET', '/a/c', 404, '10.0.0.1'));
    assert.deepEqual(store.search({ path: '/a' }, 10).map((p) => p.token), ['000003', '000002', '000001']);
    assert.deepEqual(store.search({ method: 'GET', status: 404 }, 10).map((p) => p.token), ['000003', '000001']);
    assert.deepEqual(store.search({ ip: '10.0.0.1' }, 10).map((p) => p.token), ['000003']);
    assert.deepEqual(store.search({}, 1).map((p) => p.token), ['000003']);
  });
});

describe('newestOf', () => {
  const at = (token: string, time: number) => ({ token, time }) as unknown as Profile;

  it('merges newest-first lists by request time, each token once as the first list has it', () => {
    const local = [at('000004', 40), at('000002', 20)];
    const shared = [at('000003', 30), at('000002', 20), at('000001', 10)];
    const merged = newestOf([local, shared], 3);
    assert.deepEqual(merged.map((p) => p.token), ['000004', '000003', '000002']);
    assert.equal(merged[2], local[1], 'the first list\'s profile of a token shared by both');
  });

  it('keeps the order of the profiles of one request (a request and its sub-request)', () => {
    assert.deepEqual(newestOf([[at('00000a', 5), at('00000b', 5)], []], 10).map((p) => p.token), ['00000a', '00000b']);
  });
});

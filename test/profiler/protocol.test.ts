import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEARCH_LIMIT, isToken, parsePrimaryMessage, parseProfile, parseWorkerMessage } from '../../src/profiler/protocol.js';
import { finishedProfile, overTheChannel } from './shared-profile.js';

describe('isToken', () => {
  it('accepts 6 lower-case hex characters only', () => {
    assert.ok(isToken('0a9f3c'));
    for (const odd of ['0A9F3C', '0a9f3', '0a9f3c0', 'g00000', '', 123456, null]) assert.ok(!isToken(odd), String(odd));
  });
});

describe('parseProfile', () => {
  it('gives back a profile that crossed the channel, undefined members dropped on the way', () => {
    const profile = finishedProfile('abc123', { status: undefined, durationMs: undefined, problem: undefined });
    assert.deepEqual(parseProfile(overTheChannel(profile)), profile);
  });

  it('gives back a sub-request with its main token and a stack', () => {
    const profile = finishedProfile('abc124', { parentToken: 'abc123', stack: 'Error: x\n    at f (src/app/app.ts:1:1)' });
    assert.deepEqual(parseProfile(overTheChannel(profile)), profile);
  });

  const odd: [string, Record<string, unknown>][] = [
    ['a token that is not one', { token: 'nope' }],
    ['a parent token that is not one', { parentToken: 'ABC' }],
    ['a child token that is not one', { children: ['abc123', 7] }],
    ['a time that is not a number', { time: '2024-01-01' }],
    ['a path that is not a text', { rawPath: ['/'] }],
    ['a header that is not a pair', { requestHeaders: [['host']] }],
    ['a header value that is not a text', { responseHeaders: [['x', 1]] }],
    ['attributes that are a list', { attributes: [] }],
    ['a status that is not an integer', { status: 404.5 }],
    ['a duration that is not a number', { durationMs: null }],
    ['a log line of no known level', { logs: [{ at: 1, channel: 'app', level: 'LOUD', message: 'x' }] }],
    ['a log line without a message', { logs: [{ at: 1, channel: 'app', level: 'INFO' }] }],
    ['a problem that is a text', { problem: 'Not Found' }],
    ['a stack that is not a text', { stack: 42 }],
  ];
  for (const [name, overrides] of odd) {
    it(`refuses ${name}`, () => {
      const message = { ...(overTheChannel(finishedProfile('abc123')) as object), ...overrides };
      assert.equal(parseProfile(message), undefined, name);
    });
  }
});

describe('parseWorkerMessage', () => {
  it('reads a finished profile to keep', () => {
    const profile = finishedProfile('abc123');
    assert.deepEqual(parseWorkerMessage(overTheChannel({ type: 'profiler.keep', profile })), { type: 'profiler.keep', profile });
  });

  it('reads a question for a token and a search', () => {
    assert.deepEqual(parseWorkerMessage({ type: 'profiler.find', id: 7, token: 'abc123' }), { type: 'profiler.find', id: 7, token: 'abc123' });
    const search = { type: 'profiler.search', id: 8, criteria: { method: 'GET', status: 404 }, limit: SEARCH_LIMIT };
    assert.deepEqual(parseWorkerMessage(search), { ...search, criteria: { method: 'GET', path: undefined, status: 404, ip: undefined } });
  });

  const odd: [string, unknown][] = [
    ['null', null],
    ['a text', 'profiler.find'],
    ['a list', [{ type: 'profiler.find', id: 1, token: 'abc123' }]],
    ['the listening message', { type: 'listening', url: 'http://127.0.0.1:8000' }],
    ['an unknown type', { type: 'profiler.drop', id: 1, token: 'abc123' }],
    ['a profile to keep that is not one', { type: 'profiler.keep', profile: { token: 'abc123' } }],
    ['a question without an id', { type: 'profiler.find', token: 'abc123' }],
    ['a question with a negative id', { type: 'profiler.find', id: -1, token: 'abc123' }],
    ['a question with a fractional id', { type: 'profiler.find', id: 1.5, token: 'abc123' }],
    ['a question for an upper-case token', { type: 'profiler.find', id: 1, token: 'ABC123' }],
    ['a search for no profile', { type: 'profiler.search', id: 1, criteria: {}, limit: 0 }],
    ['a search for too many profiles', { type: 'profiler.search', id: 1, criteria: {}, limit: SEARCH_LIMIT + 1 }],
    ['a search by a status that is a text', { type: 'profiler.search', id: 1, criteria: { status: '404' }, limit: 10 }],
    ['a search by a method that is not a text', { type: 'profiler.search', id: 1, criteria: { method: 1 }, limit: 10 }],
    ['a search without criteria', { type: 'profiler.search', id: 1, limit: 10 }],
  ];
  for (const [name, message] of odd) {
    it(`ignores ${name}`, () => assert.equal(parseWorkerMessage(message), undefined, name));
  }
});

describe('parsePrimaryMessage', () => {
  it('reads a found profile, a token not found and search results', () => {
    const profile = finishedProfile('abc123');
    assert.deepEqual(parsePrimaryMessage(overTheChannel({ type: 'profiler.found', id: 1, profile })), { type: 'profiler.found', id: 1, profile });
    assert.deepEqual(parsePrimaryMessage({ type: 'profiler.found', id: 2, profile: null }), { type: 'profiler.found', id: 2, profile: null });
    assert.deepEqual(parsePrimaryMessage(overTheChannel({ type: 'profiler.results', id: 3, profiles: [profile] })), { type: 'profiler.results', id: 3, profiles: [profile] });
  });

  const odd: [string, unknown][] = [
    ['an answer without an id', { type: 'profiler.found', profile: null }],
    ['a found profile that is not one', { type: 'profiler.found', id: 1, profile: { token: 'abc123' } }],
    ['results that are not a list', { type: 'profiler.results', id: 1, profiles: {} }],
    ['results with one profile that is not one', { type: 'profiler.results', id: 1, profiles: [finishedProfile('abc123'), {}] }],
    ['more results than a search asks for', { type: 'profiler.results', id: 1, profiles: Array.from({ length: SEARCH_LIMIT + 1 }, () => finishedProfile('abc123')) }],
    ['a worker\'s message', { type: 'profiler.find', id: 1, token: 'abc123' }],
  ];
  for (const [name, message] of odd) {
    it(`ignores ${name}`, () => assert.equal(parsePrimaryMessage(overTheChannel(message)), undefined, name));
  }
});

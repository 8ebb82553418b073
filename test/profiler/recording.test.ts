import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProblemDocument } from '../../src/core/index.js';
import type { RequestContext } from '../../src/http/index.js';
import {
  ENTRY_BYTES,
  FIXED_FIELDS_BYTES,
  LOG_RECORD_BYTES,
  MARKER_BYTES,
  MAX_PROFILE_BYTES,
  REQUEST_PART,
  cutMarker,
  notKeptMarker,
} from '../../src/profiler/kept.js';
import { ProfileRecording } from '../../src/profiler/recording.js';
import { textCost } from '../../src/profiler/text-cost.js';
import type { Profile } from '../../src/profiler/profile.js';

const mask = (text: string) => text.replaceAll('hunter2', '******');
const serializedBytes = (profile: Profile) => Buffer.byteLength(JSON.stringify(profile));

/** A request context whose client-chosen texts are `long(n)`. */
function contextOf(long: (length: number) => string): RequestContext {
  return {
    requestId: 'r'.repeat(128),
    method: long(20_000),
    originalMethod: 'PROPPATCH',
    target: `/${long(30_000)}?${long(30_000)}`,
    rawPath: `/${long(30_000)}`,
    segments: undefined,
    query: long(30_000),
    clientIp: `fe80::1%${long(9_000)}`,
    scheme: 'http',
    baseUrl: 'http://localhost',
    referer: undefined,
    accept: undefined,
    attributes: { 'rest.tunneling.header': 'X-HTTP-Method', 'rest.tunneling.original_method': 'PROPPATCH', 'rest.service.zone': false, 'security.subject': long(20_000) },
    rejection: undefined,
    receivedAt: 1_700_000_000_000.125,
  };
}

/**
 * Records the worst a request can send, every text made of `character`: a thousand large headers
 * and a thousand small ones, a long method, path, query and client address, two thousand long log
 * lines, a problem with two thousand errors, a long stack, a long token subject, and three
 * hundred long response headers. The main profile and the fallback's sub-request both.
 */
function recordWorstCase(character: string): ProfileRecording[] {
  const long = (length: number) => character.repeat(Math.ceil(length / character.length)).slice(0, length);
  const ctx = contextOf(long);
  const headers: Record<string, string> = {};
  for (let i = 0; i < 1_000; i++) headers[`x-large-${long(100)}-${i}`] = long(9_000);
  for (let i = 0; i < 1_000; i++) headers[`x-${i}`] = character;
  const main = new ProfileRecording({ token: 'abcdef', parentToken: undefined, ctx, headers, mask });
  const sub = new ProfileRecording({ token: '123456', parentToken: 'abcdef', ctx, headers: {}, mask });
  main.profile.children.push(sub.profile.token);
  const errors = Array.from({ length: 2_000 }, (_, i) => ({ pointer: `/${long(50)}/${i}`, reason: long(200) }));
  const doc = { type: long(9_000), title: long(200), status: 500, detail: long(20_000), instance: long(9_000), errors } as ProblemDocument;
  const responseHeaders = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`x-answer-${i}`, long(3_000)]));
  for (const recording of [main, sub]) {
    recording.keepAttributes({ ...ctx.attributes, _controller: 'rest.problem.fallback::index' });
    for (let i = 0; i < 1_000; i++) recording.keepLog(1_700_000_000_000.125 + i, 'request', 'CRITICAL', long(9_000));
    recording.keepProblem(doc, long(100_000));
    for (let i = 0; i < 1_000; i++) recording.keepLog(1_700_000_000_000.125 + i, 'app', 'ERROR', long(100));
    recording.finish(500, 1234.5678901234567, responseHeaders);
  }
  return [main, sub];
}

describe('a recorded profile', () => {
  const characters: [string, string][] = [
    ['ASCII', 'a'],
    ['Latin-1 (2 bytes of UTF-8)', 'é'],
    ['€ (3 bytes of UTF-8, 2 in memory)', '€'],
    ['an astral character (a surrogate pair)', '😀'],
    ['a control character (6 bytes as JSON)', '\u0001'],
    ['quotes and backslashes (2 bytes as JSON)', '"\\'],
  ];
  for (const [name, character] of characters) {
    it(`keeps at most 64 KiB as JSON of a worst-case request of ${name}, cut with markers`, () => {
      for (const recording of recordWorstCase(character)) {
        const { profile } = recording;
        const bytes = serializedBytes(profile);
        assert.ok(bytes <= MAX_PROFILE_BYTES, `${name}: profile ${profile.token} is ${bytes} bytes as JSON`);
        assert.match(profile.logs.at(-1)!.message, /^… \[\d+ more not kept: the profile's 64 KiB are spent\]$/, name);
        assert.equal(profile.responseHeaders.at(-1)![0], '…', name);
      }
    });
  }

  it('keeps what the request sent first: its method, path, target and client, then its headers', () => {
    const [main] = recordWorstCase('a');
    const { profile } = main!;
    assert.equal(profile.method, `${'a'.repeat(8192)}… [${20_000 - 8192} characters cut]`);
    assert.ok(profile.rawPath.startsWith('/aaa') && profile.target.startsWith('/aaa') && profile.clientIp.startsWith('fe80::1%'));
    assert.equal(profile.requestHeaders.at(-1)![0], '…');
    assert.equal(profile.attributes._controller, 'rest.problem.fallback::index');
  });

  it('keeps its own members within FIXED_FIELDS_BYTES, everything else empty', () => {
    const ctx = contextOf(() => '');
    const recording = new ProfileRecording({ token: 'abcdef', parentToken: 'fedcba', ctx: { ...ctx, attributes: {} as RequestContext['attributes'] }, headers: {}, mask });
    recording.profile.children.push('123456');
    recording.keepAttributes({});
    recording.keepProblem({} as ProblemDocument, '');
    recording.finish(599, -Number.MAX_VALUE, {});
    assert.ok(serializedBytes(recording.profile) <= FIXED_FIELDS_BYTES, `${serializedBytes(recording.profile)} bytes`);
  });

  it('sets aside room for every marker it may write, each at most MARKER_BYTES', () => {
    const notKept = ENTRY_BYTES + textCost(notKeptMarker(Number.MAX_SAFE_INTEGER));
    const markers: [string, number][] = [
      ['a text cut to its marker alone', ENTRY_BYTES + textCost(cutMarker(Number.MAX_SAFE_INTEGER))],
      ['the log line counting the lines not kept', LOG_RECORD_BYTES + notKept],
      ['the header row or problem member counting the rest', ENTRY_BYTES + textCost('…') + notKept],
      ['an object entered once spent', 2 * ENTRY_BYTES + textCost('…') + notKept],
    ];
    for (const [name, bytes] of markers) assert.ok(bytes <= MARKER_BYTES, `${name}: ${bytes} bytes`);
    assert.ok(REQUEST_PART.markers * MARKER_BYTES < REQUEST_PART.bytes / 8, 'the markers take a small share of the request part');
  });

  it('counts the log lines it could not keep in one marker line at the end', () => {
    const ctx = contextOf(() => 'x');
    const recording = new ProfileRecording({ token: 'abcdef', parentToken: undefined, ctx, headers: {}, mask });
    for (let i = 0; i < 500; i++) recording.keepLog(i, 'request', 'ERROR', 'y'.repeat(1_000));
    const { logs } = recording.profile;
    const kept = logs.length - 1;
    assert.ok(kept > 30 && kept < 60, `${kept} lines kept`);
    assert.deepEqual(logs.at(-1), { at: 499, channel: 'profiler', level: 'NOTICE', message: notKeptMarker(500 - kept) });
  });
});

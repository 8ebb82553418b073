import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  evaluatePreconditions,
  formatHttpDate,
  ifRangeHolds,
  lastModifiedOf,
  parseEntityTagList,
  parseHttpDate,
  strongEntityTag,
} from '../../src/static/conditional.js';

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const MODIFIED = Date.UTC(2025, 0, 2, 3, 4, 5);
const V = { etag: '"d-1"', lastModified: MODIFIED };
const MODIFIED_TEXT = 'Thu, 02 Jan 2025 03:04:05 GMT';

describe('strongEntityTag and lastModifiedOf', () => {
  it('quotes size and nanosecond mtime in hex', () => {
    assert.equal(strongEntityTag(255n, 4096n), '"ff-1000"');
  });
  it('tells apart two writes within one second', () => {
    assert.notEqual(strongEntityTag(1n, 1_000_000_001n), strongEntityTag(1n, 1_000_000_002n), 'one ns apart');
  });
  it('truncates Last-Modified to whole seconds', () => {
    assert.equal(lastModifiedOf(MODIFIED + 999.9, NOW), MODIFIED);
  });
  it('replaces a modification time in the future with the date of the message (whole seconds)', () => {
    assert.equal(lastModifiedOf(Date.UTC(2030, 0, 1), NOW + 250), NOW);
  });
});

describe('parseHttpDate', () => {
  it('reads an IMF-fixdate', () => assert.equal(parseHttpDate(MODIFIED_TEXT, NOW), MODIFIED));
  it('reads what formatHttpDate writes', () => assert.equal(parseHttpDate(formatHttpDate(MODIFIED), NOW), MODIFIED));
  it('reads the obsolete RFC 850 format', () => {
    assert.equal(parseHttpDate('Thursday, 02-Jan-25 03:04:05 GMT', NOW), MODIFIED, 'RFC 850 date');
  });
  it('puts an RFC 850 year more than 50 years ahead in the past century', () => {
    assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW), Date.UTC(1994, 10, 6, 8, 49, 37), '94 in 2025');
  });
  it('reads the asctime format, one-digit day padded with a space', () => {
    assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW), Date.UTC(1994, 10, 6, 8, 49, 37), 'asctime');
  });
  const invalid: [string, string][] = [
    ['a bare number', '1'],
    ['an ISO date', '2025-01-02T03:04:05Z'],
    ['a time zone other than GMT', 'Thu, 02 Jan 2025 03:04:05 +0100'],
    ['a day the month does not have', 'Sat, 31 Feb 2025 03:04:05 GMT'],
    ['an hour out of range', 'Thu, 02 Jan 2025 24:04:05 GMT'],
    ['lower-case month', 'Thu, 02 jan 2025 03:04:05 GMT'],
    ['an empty value', ''],
  ];
  for (const [name, value] of invalid) {
    it(`refuses ${name}`, () => assert.equal(parseHttpDate(value, NOW), undefined, `${name}: ${value}`));
  }
});

describe('parseEntityTagList', () => {
  it('reads *', () => assert.equal(parseEntityTagList(' * '), '*'));
  it('reads strong and weak tags with spaces and empty elements', () => {
    assert.deepEqual(parseEntityTagList('"a", W/"b" ,, "c"'), [
      { weak: false, opaque: '"a"' },
      { weak: true, opaque: '"b"' },
      { weak: false, opaque: '"c"' },
    ]);
  });
  it('keeps a comma inside a tag', () => {
    assert.deepEqual(parseEntityTagList('"a,b"'), [{ weak: false, opaque: '"a,b"' }]);
  });
  it('refuses an unquoted tag', () => assert.equal(parseEntityTagList('abc'), undefined));
  it('refuses garbage after a tag', () => assert.equal(parseEntityTagList('"a" x'), undefined));
});

describe('evaluatePreconditions', () => {
  const cases: [string, Parameters<typeof evaluatePreconditions>[0], ReturnType<typeof evaluatePreconditions>][] = [
    ['no conditional fields', {}, 'proceed'],
    ['If-None-Match with the tag', { ifNoneMatch: '"d-1"' }, 'notModified'],
    ['If-None-Match with the tag made weak (weak comparison)', { ifNoneMatch: 'W/"d-1"' }, 'notModified'],
    ['If-None-Match with the tag in a list', { ifNoneMatch: '"x", "d-1"' }, 'notModified'],
    ['If-None-Match: *', { ifNoneMatch: '*' }, 'notModified'],
    ['If-None-Match with another tag', { ifNoneMatch: '"x"' }, 'proceed'],
    ['If-None-Match that does not parse', { ifNoneMatch: 'd-1' }, 'proceed'],
    ['If-None-Match not matching wins over a matching If-Modified-Since', { ifNoneMatch: '"x"', ifModifiedSince: MODIFIED_TEXT }, 'proceed'],
    ['If-None-Match matching wins over an older If-Modified-Since', { ifNoneMatch: '"d-1"', ifModifiedSince: 'Thu, 01 Jan 1970 00:00:00 GMT' }, 'notModified'],
    ['If-Modified-Since equal to Last-Modified', { ifModifiedSince: MODIFIED_TEXT }, 'notModified'],
    ['If-Modified-Since after Last-Modified', { ifModifiedSince: 'Fri, 03 Jan 2025 00:00:00 GMT' }, 'notModified'],
    ['If-Modified-Since one second before Last-Modified', { ifModifiedSince: 'Thu, 02 Jan 2025 03:04:04 GMT' }, 'proceed'],
    ['If-Modified-Since that is not a date', { ifModifiedSince: 'yesterday' }, 'proceed'],
    ['If-Match with the tag', { ifMatch: '"d-1"' }, 'proceed'],
    ['If-Match: *', { ifMatch: '*' }, 'proceed'],
    ['If-Match with the tag made weak (strong comparison)', { ifMatch: 'W/"d-1"' }, 'failed'],
    ['If-Match with another tag', { ifMatch: '"x"' }, 'failed'],
    ['If-Unmodified-Since before Last-Modified', { ifUnmodifiedSince: 'Wed, 01 Jan 2025 00:00:00 GMT' }, 'failed'],
    ['If-Unmodified-Since equal to Last-Modified', { ifUnmodifiedSince: MODIFIED_TEXT }, 'proceed'],
    ['If-Unmodified-Since that is not a date', { ifUnmodifiedSince: '1' }, 'proceed'],
    ['If-Match matching wins over a failing If-Unmodified-Since', { ifMatch: '"d-1"', ifUnmodifiedSince: 'Wed, 01 Jan 2025 00:00:00 GMT' }, 'proceed'],
    ['a failing If-Match wins over a matching If-None-Match', { ifMatch: '"x"', ifNoneMatch: '"d-1"' }, 'failed'],
  ];
  for (const [name, fields, expected] of cases) {
    it(`gives ${expected} for ${name}`, () => assert.equal(evaluatePreconditions(fields, V, NOW), expected, name));
  }
});

describe('ifRangeHolds', () => {
  const cases: [string, string, boolean][] = [
    ['the current strong tag', '"d-1"', true],
    ['the current tag made weak', 'W/"d-1"', false],
    ['another tag', '"d-2"', false],
    ['a date equal to Last-Modified', MODIFIED_TEXT, true],
    ['a date after Last-Modified', 'Fri, 03 Jan 2025 00:00:00 GMT', false],
    ['a date before Last-Modified', 'Wed, 01 Jan 2025 00:00:00 GMT', false],
    ['something that is neither', 'whatever', false],
  ];
  for (const [name, value, expected] of cases) {
    it(`is ${expected} for ${name}`, () => assert.equal(ifRangeHolds(value, V, NOW), expected, name));
  }
});

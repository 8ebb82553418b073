import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasDotSegmentBelow, isSafeSegments } from '../../src/static/safe-path.js';

describe('isSafeSegments', () => {
  it('accepts ordinary names', () => {
    assert.equal(isSafeSegments(['posters', 'a1b2.jpg']), true, 'posters/a1b2.jpg');
    assert.equal(isSafeSegments(['with space & ünïcode.txt']), true, 'a name with spaces and accents');
    assert.equal(isSafeSegments(['a..b.txt']), true, 'dots inside a name are not traversal');
  });

  const refused: [string, string[]][] = [
    ['no segment at all', []],
    ['an empty segment (trailing slash)', ['sub', '']],
    ['an empty segment (double slash)', ['', 'x']],
    ['a . segment', ['.', 'x']],
    ['a .. segment', ['..', 'x']],
    ['a dotfile', ['.env']],
    ['a dot-directory', ['.git', 'config']],
    ['a dotfile deeper down', ['sub', '.hidden']],
    ['a slash inside a segment (%2F)', ['../x']],
    ['a leading slash inside a segment', ['/etc/passwd']],
    ['a backslash inside a segment (%5C)', ['..\\x']],
    ['a NUL inside a segment (%00)', ['x.txt\0.png']],
  ];
  for (const [name, segments] of refused) {
    it(`refuses ${name}`, () => assert.equal(isSafeSegments(segments), false, name));
  }
});

describe('hasDotSegmentBelow', () => {
  it('finds a dotfile or dot-directory below the root only', () => {
    assert.equal(hasDotSegmentBelow('/srv/public', '/srv/public/.env', '/'), true, '.env');
    assert.equal(hasDotSegmentBelow('/srv/public', '/srv/public/.git/config', '/'), true, '.git/config');
    assert.equal(hasDotSegmentBelow('/srv/public', '/srv/public/a/b.txt', '/'), false, 'a/b.txt');
    assert.equal(hasDotSegmentBelow('/home/.me/public', '/home/.me/public/a.txt', '/'), false, 'a dot above the root');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInside } from '../../src/util/paths.js';

describe('isInside', () => {
  it('accepts a path below the root', () => {
    assert.equal(isInside('/srv/public', '/srv/public/a.txt', '/'), true, '/srv/public/a.txt');
  });
  it('refuses a sibling directory sharing the prefix', () => {
    assert.equal(isInside('/srv/public', '/srv/public-secret/a.txt', '/'), false, '/srv/public-secret');
    assert.equal(isInside('/srv/public', '/srv/publicx', '/'), false, '/srv/publicx');
  });
  it('refuses the root itself and its parent', () => {
    assert.equal(isInside('/srv/public', '/srv/public', '/'), false, 'the root');
    assert.equal(isInside('/srv/public', '/srv', '/'), false, 'the parent');
  });
  it('handles a root that ends with the separator, like /', () => {
    assert.equal(isInside('/', '/etc', '/'), true, '/etc under /');
    assert.equal(isInside('/', '/', '/'), false, '/ under /');
  });
  it('uses the separator it is given', () => {
    assert.equal(isInside('C:\\srv\\public', 'C:\\srv\\public\\a.txt', '\\'), true, 'a Windows path');
    assert.equal(isInside('C:\\srv\\public', 'C:\\srv\\public-secret\\a.txt', '\\'), false, 'a Windows sibling');
  });
});

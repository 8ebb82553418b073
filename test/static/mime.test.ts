import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONTENT_TYPE, contentTypeFor } from '../../src/static/mime.js';

describe('contentTypeFor', () => {
  const cases: [string, string][] = [
    ['index.html', 'text/html; charset=utf-8'],
    ['site.css', 'text/css; charset=utf-8'],
    ['app.js', 'text/javascript; charset=utf-8'],
    ['module.mjs', 'text/javascript; charset=utf-8'],
    ['data.json', 'application/json'],
    ['notes.txt', 'text/plain; charset=utf-8'],
    ['logo.svg', 'image/svg+xml; charset=utf-8'],
    ['image.png', 'image/png'],
    ['photo.jpg', 'image/jpeg'],
    ['photo.jpeg', 'image/jpeg'],
    ['picture.webp', 'image/webp'],
    ['anim.gif', 'image/gif'],
    ['favicon.ico', 'image/vnd.microsoft.icon'],
    ['font.woff2', 'font/woff2'],
    ['paper.pdf', 'application/pdf'],
  ];
  for (const [name, type] of cases) {
    it(`gives ${type} for ${name}`, () => assert.equal(contentTypeFor(name), type, name));
  }

  it('reads the extension case-insensitively', () => {
    assert.equal(contentTypeFor('POSTER.JPG'), 'image/jpeg', 'POSTER.JPG');
  });

  it('uses only the last extension', () => {
    assert.equal(contentTypeFor('archive.tar.gz'), DEFAULT_CONTENT_TYPE, 'archive.tar.gz');
    assert.equal(contentTypeFor('page.txt.html'), 'text/html; charset=utf-8', 'page.txt.html');
  });

  it('gives application/octet-stream for unknown or missing extensions', () => {
    assert.equal(contentTypeFor('blob.bin'), 'application/octet-stream', 'blob.bin');
    assert.equal(contentTypeFor('README'), 'application/octet-stream', 'README');
    assert.equal(contentTypeFor('trailing.'), 'application/octet-stream', 'trailing.');
  });

  it('never takes a name from the object prototype for an extension', () => {
    assert.equal(contentTypeFor('x.constructor'), DEFAULT_CONTENT_TYPE, 'x.constructor');
    assert.equal(contentTypeFor('x.__proto__'), DEFAULT_CONTENT_TYPE, 'x.__proto__');
  });

  it('does not read a leading dot as an extension', () => {
    assert.equal(contentTypeFor('.json'), DEFAULT_CONTENT_TYPE, '.json');
  });
});

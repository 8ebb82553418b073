import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileRoutes, matchRoute, splitPath } from '../../src/core/router.js';

const routes = compileRoutes([
  { id: 'root', path: '/', methods: ['OPTIONS', 'GET', 'HEAD'], handler: 'root' },
  { id: 'item', path: '/items/{id}', methods: ['GET', 'PUT'], handler: 'item' },
  { id: 'item-delete', path: '/items/{id}', methods: ['DELETE'], handler: 'item-delete' },
  { id: 'files', path: '/static/{path*}', methods: ['GET', 'HEAD'], handler: 'files' },
]);

describe('splitPath', () => {
  it('splits / into one empty segment', () => assert.deepEqual(splitPath('/'), ['']));
  it('decodes each segment after splitting, so %2F stays inside its segment', () => {
    assert.deepEqual(splitPath('/a%2Fb/c'), ['a/b', 'c']);
  });
  it('keeps empty segments of //x', () => assert.deepEqual(splitPath('//x'), ['', 'x']));
  it('gives undefined for an invalid percent-encoding', () => assert.equal(splitPath('/%zz'), undefined));
  it('gives undefined for overlong UTF-8', () => assert.equal(splitPath('/%C0%AE'), undefined));
  it('gives undefined for a path that does not start with /', () => assert.equal(splitPath('*'), undefined));
});

describe('matchRoute', () => {
  it('matches GET / to the root route', () => {
    const m = matchRoute(routes, 'GET', splitPath('/'));
    assert.equal(m.kind, 'matched');
    assert.equal(m.kind === 'matched' && m.route.id, 'root');
  });

  it('serves HEAD from a GET route that does not list HEAD', () => {
    const m = matchRoute(routes, 'HEAD', splitPath('/items/7'));
    assert.equal(m.kind === 'matched' && m.route.id, 'item');
  });

  it('gives methodNotAllowed with the Allow list in definition order across routes', () => {
    assert.deepEqual(matchRoute(routes, 'POST', splitPath('/items/7')), {
      kind: 'methodNotAllowed',
      allow: ['GET', 'PUT', 'DELETE'],
    });
  });

  it('gives the root Allow list as declared', () => {
    assert.deepEqual(matchRoute(routes, 'PATCH', splitPath('/')), { kind: 'methodNotAllowed', allow: ['OPTIONS', 'GET', 'HEAD'] });
  });

  it('finds a later route for the same path when the first does not allow the method', () => {
    const m = matchRoute(routes, 'DELETE', splitPath('/items/7'));
    assert.equal(m.kind === 'matched' && m.route.id, 'item-delete');
  });

  it('decodes parameters', () => {
    const m = matchRoute(routes, 'GET', splitPath('/items/a%20b'));
    assert.deepEqual(m.kind === 'matched' && m.params, { id: 'a b' });
  });

  it('never matches an empty parameter', () => {
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/items/')), { kind: 'notFound' });
  });

  it('is case-sensitive', () => {
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/Items/7')), { kind: 'notFound' });
  });

  it('does not match a trailing slash to a path without one', () => {
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/items/7/')), { kind: 'notFound' });
  });

  it('never lets %2F act as a separator', () => {
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/items%2F7')), { kind: 'notFound' });
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/%2F')), { kind: 'notFound' });
  });

  it('gives a rest pattern its segments one by one', () => {
    const m = matchRoute(routes, 'GET', splitPath('/static/a%2Fb/c.txt'));
    assert.deepEqual(m.kind === 'matched' && m.rest, ['a/b', 'c.txt']);
  });

  it('needs at least one segment for a rest pattern', () => {
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/static')), { kind: 'notFound' });
  });

  it('gives notFound for an undecodable path whatever the method', () => {
    assert.deepEqual(matchRoute(routes, 'GET', splitPath('/%zz')), { kind: 'notFound' });
  });
});

describe('compileRoutes', () => {
  it('refuses a path without a leading slash', () => {
    assert.throws(() => compileRoutes([{ id: 'x', path: 'x', methods: ['GET'], handler: 0 }]), TypeError);
  });
  it('refuses a route without methods', () => {
    assert.throws(() => compileRoutes([{ id: 'x', path: '/x', methods: [], handler: 0 }]), TypeError);
  });
  it('refuses a rest pattern before the last segment', () => {
    assert.throws(() => compileRoutes([{ id: 'x', path: '/{a*}/b', methods: ['GET'], handler: 0 }]), /must be the last segment/);
  });
});

describe('matchRoute with handlesEveryMethod', () => {
  const everyMethod = compileRoutes([
    { id: 'root', path: '/', methods: ['OPTIONS', 'GET', 'HEAD'], handler: 'root' },
    { id: 'files', path: '/static/{path*}', methods: ['GET', 'HEAD'], handlesEveryMethod: true, handler: 'files' },
    { id: 'catch-all', path: '/{path*}', methods: ['GET'], handlesEveryMethod: true, handler: 'catch-all' },
  ]);

  it('matches a method the route does not list, keeping its rest segments', () => {
    const m = matchRoute(everyMethod, 'DELETE', splitPath('/static/a/b.txt'));
    assert.equal(m.kind, 'matched', 'DELETE on a handlesEveryMethod route');
    assert.equal(m.kind === 'matched' && m.route.id, 'files', 'DELETE on a handlesEveryMethod route');
    assert.deepEqual(m.kind === 'matched' && m.rest, ['a', 'b.txt'], 'DELETE on a handlesEveryMethod route');
  });

  it('leaves the route its own Allow list for the handler to use', () => {
    const m = matchRoute(everyMethod, 'POST', splitPath('/static/x'));
    assert.deepEqual(m.kind === 'matched' && m.route.methods, ['GET', 'HEAD'], 'POST /static/x');
  });

  it('matches methods Node knows but nobody routes, like PROPFIND', () => {
    const m = matchRoute(everyMethod, 'PROPFIND', splitPath('/static/x'));
    assert.equal(m.kind === 'matched' && m.route.id, 'files', 'PROPFIND /static/x');
  });

  it('keeps methodNotAllowed of an earlier route that matches the path', () => {
    assert.deepEqual(
      matchRoute(everyMethod, 'POST', splitPath('/')),
      { kind: 'methodNotAllowed', allow: ['OPTIONS', 'GET', 'HEAD'] },
      'POST / before a catch-all handlesEveryMethod route',
    );
  });

  it('still gives notFound when the path does not match', () => {
    const routes = compileRoutes([{ id: 'files', path: '/static/{path*}', methods: ['GET'], handlesEveryMethod: true, handler: 0 }]);
    assert.deepEqual(matchRoute(routes, 'PUT', splitPath('/other')), { kind: 'notFound' }, 'PUT /other');
    assert.deepEqual(matchRoute(routes, 'PUT', splitPath('/static')), { kind: 'notFound' }, 'PUT /static');
  });

  it('changes nothing for routes without the flag', () => {
    assert.deepEqual(
      matchRoute(routes, 'POST', splitPath('/static/a.txt')),
      { kind: 'methodNotAllowed', allow: ['GET', 'HEAD'] },
      'POST /static/a.txt without the flag',
    );
  });
});

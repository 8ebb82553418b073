// Hono + pino on Node, as Hono's and @hono/node-server's docs show: `serve({ fetch: app.fetch })`
// with its defaults (`overrideGlobalObjects: true`, the adapter's lightweight Request and
// Response; `autoCleanupIncoming: true`, as a server open to any client keeps it), routes for `/`
// (GET, which Hono also runs for HEAD without the body, and OPTIONS) and `app.notFound` for the
// rest. The handlers read the request from the Node bindings (`c.env.incoming`, documented as
// HttpBindings): its raw target and headers, so no WHATWG Headers object is built per request;
// they return `new Response(body, { status, headers })` with a plain header object, which the
// adapter writes straight to Node (a `Headers` built by `c.body(…, headers)` costs a conversion).
// Each request is answered as ours answers it (servers/peer-404.mjs; bench:mix --check).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { ALLOW_HOME, CACHE_404, CACHE_HOME, HTML, PROBLEM_JSON, createHome, createLogger, expiresHeader, notFound, wantsJson } from './peer-404.mjs';

const { logger, destination } = createLogger();
const home = createHome();
/** @type {Hono<{ Bindings: import('@hono/node-server').HttpBindings }>} */
const app = new Hono();
app.get('/', (c) => {
  const { headers } = c.env.incoming;
  const json = wantsJson(headers.accept);
  const body = home(json, headers.host);
  return new Response(body, {
    status: 200,
    // Content-Length given: Hono answers HEAD with this response's head and no body.
    headers: { 'content-type': json ? 'application/json' : HTML, vary: 'Accept', 'cache-control': CACHE_HOME, 'content-length': String(body.length) },
  });
});
app.options('/', () => new Response(null, { status: 204, headers: { allow: ALLOW_HOME } }));
app.notFound((c) => {
  const { incoming } = c.env;
  const { headers } = incoming;
  const { json, body } = notFound(logger, incoming.method, incoming.url, 'http', headers.host, headers.accept, headers.referer);
  return new Response(body, {
    status: 404,
    headers: {
      'x-robots-tag': 'none',
      'cache-control': CACHE_404,
      expires: expiresHeader(),
      'content-type': json ? PROBLEM_JSON : HTML,
      vary: json ? 'Accept, Referer' : 'Accept',
      'content-length': String(json ? Buffer.byteLength(body) : body.length),
    },
  });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => {
    destination.flushSync();
    process.exit(0);
  });
});

// Bare node:http + pino for the mix benchmarks: the floor of a Node server doing the mix's work,
// written as a Node expert writes a hot handler: one `createServer` callback, the route decided by
// the target (`/`, with or without a query), the head handed to `writeHead` as one flat array of name and value (Node
// writes it as it is, no header object kept on the response), the body in the same `end`; Node
// drops the body of a HEAD answer and keeps its Content-Length. Each request is answered as ours
// answers it (servers/peer-404.mjs; bench:mix --check); the lines go through pino's asynchronous
// destination as the framework peers' do.
import { createServer } from 'node:http';
import { ALLOW_HOME, CACHE_404, CACHE_HOME, HTML, PROBLEM_JSON, createHome, createLogger, expiresHeader, notFound, wantsJson } from './peer-404.mjs';

const { logger, destination } = createLogger();
const home = createHome();
const OPTIONS_HEAD = ['allow', ALLOW_HOME];

const server = createServer((req, res) => {
  const { headers, method, url } = req;
  if ((url === '/' || url.startsWith('/?')) && (method === 'GET' || method === 'HEAD' || method === 'OPTIONS')) {
    if (method === 'OPTIONS') {
      res.writeHead(204, OPTIONS_HEAD);
      res.end();
      return;
    }
    const json = wantsJson(headers.accept);
    const body = home(json, headers.host);
    res.writeHead(200, ['content-type', json ? 'application/json' : HTML, 'vary', 'Accept', 'cache-control', CACHE_HOME, 'content-length', body.length]);
    res.end(body);
    return;
  }
  const { json, body } = notFound(logger, method, url, 'http', headers.host, headers.accept, headers.referer);
  res.writeHead(404, [
    'x-robots-tag', 'none',
    'cache-control', CACHE_404,
    'expires', expiresHeader(),
    'content-type', json ? PROBLEM_JSON : HTML,
    'vary', json ? 'Accept, Referer' : 'Accept',
    'content-length', json ? Buffer.byteLength(body) : body.length,
  ]);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close(() => {
    destination.flushSync();
    process.exit(0);
  });
  server.closeIdleConnections();
});

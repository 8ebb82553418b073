// fastify + pino for the mix benchmarks, written as fastify's docs show: pino as its logger
// (`loggerInstance`, pino's asynchronous destination), `request.log` in the handlers, routes for
// `/` (GET, with the HEAD route fastify adds, and OPTIONS) and `setNotFoundHandler` for the rest,
// headers through `reply.header`, bodies handed to `reply.send` as Buffers once the content type
// is set, so fastify only adds Content-Length (a string with a JSON type gets `; charset=utf-8`). Each request is answered as
// ours answers it (servers/peer-404.mjs; bench:mix --check holds them equal).
// REQUEST_LOG=1 turns on fastify's own request logging (one line in, one out).
// HOME_HTML and HOME_JSON (ours' entry point, `{origin}` for its origin) give `/` both documents;
// without them, BODY (our JSON document) is the answer to GET /, as bench:tls gives it.
// For bench:tls, as fastify's docs show: TLS_CERT and TLS_KEY turn on its `https` option, with
// HTTP2=1 `http2: true` and `https: { allowHTTP1: true }` (h2 and HTTP/1.1 by ALPN).
import { readFileSync } from 'node:fs';
import Fastify, { LogController } from 'fastify';
import { ALLOW_HOME, CACHE_HOME, HTML, createHome, createLogger, replyNotFound, wantsJson } from './peer-404.mjs';

function tlsOptions() {
  if (process.env.TLS_CERT === undefined) return {};
  const https = { key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) };
  return process.env.HTTP2 === '1' ? { http2: true, https: { ...https, allowHTTP1: true } } : { https };
}
const scheme = process.env.TLS_CERT === undefined ? 'http' : 'https';

const { logger, destination } = createLogger();
const requestLog = process.env.REQUEST_LOG === '1';
if (requestLog) logger.level = 'info';
const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: !requestLog }), ...tlsOptions() });

if (process.env.HOME_JSON !== undefined) {
  const home = createHome(scheme);
  // fastify answers HEAD / through this route too (exposeHeadRoutes), without the body.
  app.get('/', (request, reply) => {
    const json = wantsJson(request.headers.accept);
    reply.header('content-type', json ? 'application/json' : HTML).header('vary', 'Accept').header('cache-control', CACHE_HOME);
    return reply.send(home(json, request.host));
  });
  app.options('/', (request, reply) => reply.code(204).header('allow', ALLOW_HOME).send());
} else if (process.env.BODY !== undefined) {
  const doc = JSON.parse(process.env.BODY);
  app.get('/', (request, reply) => {
    reply.header('vary', 'Accept').header('cache-control', 'no-cache, private').send(doc);
  });
}

app.setNotFoundHandler((request, reply) => replyNotFound(request, reply, scheme));

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => {
    destination.flushSync();
    process.exit(0);
  });
});

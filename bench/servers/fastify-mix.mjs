// fastify + pino for the mix benchmarks: every unrouted request is answered as ours answers it
// (servers/peer-404.mjs). REQUEST_LOG=1 turns on fastify's own request logging (one line in, one
// out). For bench:tls, as fastify's docs show: TLS_CERT and TLS_KEY turn on its `https` option,
// with HTTP2=1 `http2: true` and `https: { allowHTTP1: true }` (h2 and HTTP/1.1 by ALPN); BODY
// (our JSON document) is then the answer to GET /, as servers/fastify-doc.mjs gives it.
import { readFileSync } from 'node:fs';
import Fastify, { LogController } from 'fastify';
import { createLogger, notFound } from './peer-404.mjs';

function tlsOptions() {
  if (process.env.TLS_CERT === undefined) return {};
  const https = { key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) };
  return process.env.HTTP2 === '1' ? { http2: true, https: { ...https, allowHTTP1: true } } : { https };
}

const { logger, destination } = createLogger();
const requestLog = process.env.REQUEST_LOG === '1';
if (requestLog) logger.level = 'info';
const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: !requestLog }), ...tlsOptions() });
if (process.env.BODY !== undefined) {
  const doc = JSON.parse(process.env.BODY);
  app.get('/', (request, reply) => {
    reply.header('vary', 'Accept').header('cache-control', 'no-cache, private').send(doc);
  });
}
app.setNotFoundHandler((request, reply) => {
  const { headers, body } = notFound(request.log, {
    method: request.method,
    url: request.url,
    // request.host: the Host header, or h2's :authority.
    host: request.host,
    accept: request.headers.accept,
    referer: request.headers.referer,
  });
  reply.code(404).headers(headers).send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => {
    destination.flushSync();
    process.exit(0);
  });
});

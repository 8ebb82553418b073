// fastify + pino for the mix benchmark: every request is unrouted and answered as ours answers it
// (servers/peer-404.mjs). REQUEST_LOG=1 turns on fastify's own request logging (one line in, one out).
import Fastify, { LogController } from 'fastify';
import { createLogger, notFound } from './peer-404.mjs';

const { logger, destination } = createLogger();
const requestLog = process.env.REQUEST_LOG === '1';
if (requestLog) logger.level = 'info';
const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: !requestLog }) });
app.setNotFoundHandler((request, reply) => {
  const { headers, body } = notFound(request.log, {
    method: request.method,
    url: request.url,
    host: request.headers.host,
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

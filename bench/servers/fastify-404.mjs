// fastify + pino for the 404 flood (bench:http, bench:instructions): every unrouted request is
// answered by `setNotFoundHandler` as ours answers it (the problem document for a JSON client, the
// prod page otherwise, the year-long cache headers, Vary), with one error line through pino's
// asynchronous destination. The lean pieces are servers/peer-404.mjs's, as in the mix peers.
import Fastify, { LogController } from 'fastify';
import { createLogger, replyNotFound } from './peer-404.mjs';

const { logger, destination } = createLogger();
const app = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) });
app.setNotFoundHandler((request, reply) => replyNotFound(request, reply, 'http'));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => {
    destination.flushSync();
    process.exit(0);
  });
});

// fastify + pino for the 404 flood: every unrouted request logs one error line to LOG_FILE
// (pino's NDJSON line, asynchronous destination) and answers a problem document.
import Fastify from 'fastify';
import pino from 'pino';

const destination = pino.destination({ dest: process.env.LOG_FILE, sync: false, minLength: 4096 });
const logger = pino({ level: 'error', base: undefined }, destination);
const app = Fastify({ loggerInstance: logger, disableRequestLogging: true });
app.setNotFoundHandler((request, reply) => {
  const detail = `No route found for "${request.method} ${request.url.split('?')[0]}"`;
  request.log.error(detail);
  reply
    .code(404)
    .header('content-type', 'application/problem+json')
    .header('cache-control', 'immutable, max-age=31536000, public')
    .header('x-robots-tag', 'none')
    .send(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail, instance: request.url }));
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => {
    destination.flushSync();
    process.exit(0);
  });
});

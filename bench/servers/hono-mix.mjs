// Hono (@hono/node-server) + pino for the mix benchmark: every request is unrouted and answered
// as ours answers it (servers/peer-404.mjs).
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createLogger, notFound } from './peer-404.mjs';

const { logger, destination } = createLogger();
const app = new Hono();
app.notFound((c) => {
  const url = c.req.url;
  const target = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  const { headers, body } = notFound(logger, {
    method: c.req.method,
    url: target,
    host: c.req.header('host'),
    accept: c.req.header('accept'),
    referer: c.req.header('referer'),
  });
  return c.body(body, 404, headers);
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

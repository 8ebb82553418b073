// fastify answering GET / with the same document as our service (BODY from the benchmark).
import Fastify from 'fastify';

const doc = JSON.parse(process.env.BODY ?? '{}');
const app = Fastify({ logger: false });
app.get('/', (request, reply) => {
  reply.header('vary', 'Accept').header('cache-control', 'no-cache, private').send(doc);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

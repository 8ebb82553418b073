// fastify answering GET / with the same document as our service (BODY from the benchmark), as
// fastify's docs and its own benchmarks write a JSON route: a response schema, so fastify
// serializes the object with fast-json-stringify (the schema here is derived from the document,
// its properties in the document's order, so the bytes are ours').
import Fastify from 'fastify';

const doc = JSON.parse(process.env.BODY ?? '{}');
/** A JSON schema of `value`: objects with their properties in order, strings, numbers, booleans. */
const schemaOf = (value) =>
  value !== null && typeof value === 'object'
    ? { type: 'object', properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)])) }
    : { type: typeof value };
const app = Fastify({ logger: false });
app.get('/', { schema: { response: { 200: schemaOf(doc) } } }, (request, reply) => {
  reply.header('vary', 'Accept').header('cache-control', 'no-cache, private').send(doc);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

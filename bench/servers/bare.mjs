// The ceiling for GET /: a bare node:http handler writing the bytes our service writes, one
// `writeHead` with a flat header list and one `end` with a Buffer made at start.
// BODY and CONTENT_TYPE come from the benchmark, which reads them from our service first.
import { createRequire } from 'node:module';

// HTTP_BY_REQUIRE=1 loads node:http with require: an import also loads Node's fetch client on
// Node 22 and 24 (nodejs/node#57649), which the service avoids; bench:http shows both starts.
const { createServer } = process.env.HTTP_BY_REQUIRE === '1' ? createRequire(import.meta.url)('node:http') : await import('node:http');

const body = Buffer.from(process.env.BODY ?? '{}');
// The head as one flat list of names and values: Node writes it as it is, keeping no header object.
const headers = ['content-type', process.env.CONTENT_TYPE ?? 'application/json', 'vary', 'Accept', 'cache-control', 'no-cache, private', 'content-length', String(body.length)];
const server = createServer((req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

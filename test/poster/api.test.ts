import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { createRenderPool, RenderQueueFull } from '../../src/poster/pool.js';
import { validatePosterSpec, type PosterSpec } from '../../src/render/spec.js';
import { problemOf, send, sendRaw, statusOf } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-api-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'poster api passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
const publicDir = join(root, 'public');

const api = await startTestService({
  POSTER_API: '1',
  PUBLIC_DIR: publicDir,
  JWT_SECRET_KEY: keyPaths.secretKeyPath,
  JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
  JWT_PASSPHRASE: PASS,
});
const token = await issueToken(privateKey, 'ana', 3600, Date.now());
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const post = (body: string, headers: Record<string, string> = auth) => send(api.url, 'POST', '/api/posters', headers, body);

describe('POST /api/posters', () => {
  it('renders a poster: 201, Location and its figures, served from the static namespace', async () => {
    const res = await post(JSON.stringify({ title: 'Año Nuevo', subtitle: 'Señor Ñandú', quality: 80 }));
    assert.equal(res.status, 201, res.body);
    const body = JSON.parse(res.body);
    assert.match(body.url, new RegExp(`^${api.url}/static/posters/[0-9a-f]+\\.jpg$`));
    assert.equal(res.headers.location, body.url);
    assert.equal(body.width, 1125);
    assert.equal(body.height, 2436);
    const image = await send(api.url, 'GET', new URL(body.url).pathname);
    assert.equal(image.status, 200);
    assert.equal(image.headers['content-type'], 'image/jpeg');
    assert.equal(image.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(Number(image.headers['content-length']), body.bytes);
    const file = readFileSync(join(publicDir, new URL(body.url).pathname.replace('/static/', '')));
    assert.deepEqual([...file.subarray(0, 2)], [0xff, 0xd8]);
  });

  it('gives the same URL for the same spec', async () => {
    const spec = JSON.stringify({ title: 'Idempotent' });
    const a = JSON.parse((await post(spec)).body);
    const b = JSON.parse((await post(spec)).body);
    assert.equal(a.url, b.url);
  });

  it('answers JSON on the matched service route whatever the Accept (rest.service.zone true)', async () => {
    const res = await post('{}', { 'content-type': 'application/json', accept: 'text/html' });
    assert.equal(res.status, 401);
    assert.equal(res.headers['content-type'], 'application/problem+json');
  });

  it('answers 401 with a bare challenge without credentials', async () => {
    const res = await post('{}', { 'content-type': 'application/json' });
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="problem-service"');
    assert.equal(problemOf(res).detail, 'This route needs a bearer token.');
  });

  it('answers 401 invalid_token for a bad token, as JSON whatever the Accept', async () => {
    const res = await post('{}', { authorization: 'Bearer nope', 'content-type': 'application/json', accept: 'text/html' });
    assert.equal(res.status, 401);
    assert.match(String(res.headers['www-authenticate']), /^Bearer realm="problem-service", error="invalid_token", error_description="The token is not valid: /);
    assert.equal(problemOf(res).status, 401);
  });

  it('answers 415 to a body that is not JSON', async () => {
    const res = await post('title=x', { ...auth, 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.status, 415);
    assert.equal(problemOf(res).detail, 'The request body must be application/json, not "application/x-www-form-urlencoded".');
  });

  it('accepts application/json with a charset', async () => {
    const res = await post(JSON.stringify({ title: 'Charset' }), { ...auth, 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.status, 201);
  });

  it('answers 413 to a declared body over 64 KiB and closes the connection', async () => {
    const res = await post(JSON.stringify({ title: 'x', body: 'y'.repeat(70_000) }));
    assert.equal(res.status, 413);
    assert.equal(res.headers.connection, 'close');
    assert.equal(problemOf(res).detail, 'The request body is larger than 65536 bytes.');
  });

  it('answers 413 to a chunked body that passes 64 KiB, without reading the rest', async () => {
    const head = `POST /api/posters HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = 'x'.repeat(40_000);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(2);
    const raw = await sendRaw(api.url, head + body);
    assert.equal(statusOf(raw), 413);
    assert.match(raw, /\r\nconnection: close\r\n/i);
  });

  it('answers 400 to invalid JSON', async () => {
    const res = await post('{"title": ');
    assert.equal(res.status, 400);
    assert.match(String(problemOf(res).detail), /^The request body is not valid JSON: /);
  });

  it('answers 422 with every problem and its pointer', async () => {
    const res = await post(JSON.stringify({ title: '', shapes: [{ kind: 'hexagon' }], textColor: 'red', extra: 1 }));
    assert.equal(res.status, 422);
    const p = problemOf(res);
    const errors = p.errors as { pointer: string; reason: string }[];
    const pointers = errors.map((e) => e.pointer).sort();
    assert.ok(pointers.includes('/title'), pointers.join(' '));
    assert.ok(pointers.includes('/shapes/0/kind'), pointers.join(' '));
    assert.ok(pointers.includes('/textColor'), pointers.join(' '));
    assert.ok(pointers.includes('/extra'), pointers.join(' '));
    assert.equal(p.detail, `The poster spec has ${errors.length} problems.`);
    assert.ok(errors.every((e) => typeof e.reason === 'string' && e.reason !== ''));
    assert.equal(p.schema, `${api.url}/schema/1.0/poster.json`);
    assert.equal(res.headers.link, `<${api.url}/schema/1.0/poster.json>; rel="describedby"`);
  });

  it('serves the poster spec schema at <SCHEMA_BASE>1.0/poster.json as application/schema+json', async () => {
    const res = await send(api.url, 'GET', '/schema/1.0/poster.json');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/schema+json');
    const schema = JSON.parse(res.body);
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema.$id, `${api.url}/schema/1.0/poster.json`);
    assert.deepEqual(schema.required, ['title']);
    assert.equal(schema.properties.shapes.maxItems, 32);
    // CSS's convention, as drawn (corner pixels in test/render/draw/gradient.test.ts).
    assert.match(schema.properties.background.properties.angle.description, /0 = bottom to top, 90 = left to right, 180 = top to bottom, 270 = right to left/);
  });

  it('answers other methods with a JSON 405 and Allow: OPTIONS, POST, whatever the Accept', async () => {
    for (const [method, accept] of [['PUT', '*/*'], ['GET', 'text/html'], ['DELETE', 'application/json']] as const) {
      const res = await send(api.url, method, '/api/posters', { accept });
      assert.equal(res.status, 405, `${method} (Accept ${accept})`);
      assert.equal(res.headers.allow, 'OPTIONS, POST', `${method} (Accept ${accept})`);
      assert.equal(res.headers['content-type'], 'application/problem+json', `${method} (Accept ${accept})`);
      assert.equal(problemOf(res).detail, `No route found for "${method} /api/posters": Method Not Allowed (Allow: OPTIONS, POST)`);
    }
  });

  it('answers OPTIONS like / does: 204 with Allow, no Access-Control-* while CORS_ORIGINS is empty', async () => {
    const res = await send(api.url, 'OPTIONS', '/api/posters', { origin: 'https://app.example.com', 'access-control-request-method': 'POST' });
    assert.equal(res.status, 204);
    assert.equal(res.headers.allow, 'OPTIONS, POST');
    assert.deepEqual(Object.keys(res.headers).filter((h) => h.startsWith('access-control-')), []);
  });
});

describe('a full render queue', () => {
  it('answers 503 with Retry-After while the only worker is busy and nothing may wait', async () => {
    const busy = await startTestService(
      { POSTER_API: '1', PUBLIC_DIR: join(root, 'busy'), JWT_SECRET_KEY: keyPaths.secretKeyPath, JWT_PUBLIC_KEY: keyPaths.publicKeyPath, JWT_PASSPHRASE: PASS },
      { renderPool: { size: 1, maxQueued: 0 } },
    );
    const post = (title: string) => send(busy.url, 'POST', '/api/posters', auth, JSON.stringify({ title, body: 'x'.repeat(900) }));
    const answers = await Promise.all([post('first'), post('second'), post('third')]);
    const statuses = answers.map((a) => a.status).sort();
    assert.equal(statuses[0], 201, statuses.join(' '));
    const refused = answers.filter((a) => a.status === 503);
    assert.ok(refused.length >= 1, statuses.join(' '));
    for (const r of refused) {
      assert.equal(r.headers['retry-after'], '1');
      assert.equal(problemOf(r).detail, 'Too many posters are being rendered; try again shortly.');
    }
  });
});

describe('without POSTER_API', () => {
  it('has no poster route: the observed 404', async () => {
    const plain = await startTestService();
    const res = await send(plain.url, 'POST', '/api/posters', { ...auth, accept: 'application/json' }, '{}');
    assert.equal(res.status, 404);
    assert.equal(problemOf(res).detail, 'No route found for "POST /api/posters"');
    const schema = await send(plain.url, 'GET', '/schema/1.0/poster.json');
    assert.equal(schema.status, 404);
  });
});

describe('the render pool', () => {
  const spec = (title: string) => {
    const checked = validatePosterSpec({ title });
    assert.ok(checked.ok);
    return checked.value;
  };

  it('refuses work beyond its queue with a 503 problem and Retry-After', async () => {
    const pool = createRenderPool({ size: 1, maxQueued: 1 });
    after(() => pool.close());
    const first = pool.render(spec('one'));
    const second = pool.render(spec('two'));
    await assert.rejects(pool.render(spec('three')), (err: unknown) => {
      assert.ok(err instanceof RenderQueueFull);
      assert.equal(err.status, 503);
      assert.equal(err.headers['retry-after'], '1');
      return true;
    });
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual([...a.subarray(0, 2)], [0xff, 0xd8]);
    assert.notDeepEqual(a, b);
  });

  it('renders without writing anything: the bytes come back to the caller', async () => {
    const pool = createRenderPool({ size: 1 });
    after(() => pool.close());
    const bytes = await pool.render(spec('bytes only'));
    assert.deepEqual([...bytes.subarray(-2)], [0xff, 0xd9]);
  });

  it('fails a job the renderer throws on, and renders the next one', async () => {
    const pool = createRenderPool({ size: 1 });
    after(() => pool.close());
    // Only a forged value gets past the PosterSpec brand: the worker trusts what it is given.
    await assert.rejects(pool.render({ title: 42 } as unknown as PosterSpec), /background/);
    const checked = validatePosterSpec({ title: 'after a failure' });
    assert.ok(checked.ok);
    const bytes = await pool.render(checked.value);
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8]);
  });
});

describe('docs/posters-and-api.md', () => {
  it('documents every member of the poster spec schema', async () => {
    const { posterSchema } = await import('../../src/render/schema.js');
    const page = readFileSync('docs/posters-and-api.md', 'utf8');
    const schema = posterSchema('x') as { properties: Record<string, unknown> & { shapes: { items: { oneOf: { properties: Record<string, unknown> }[] } } } };
    const members = [
      ...Object.keys(schema.properties),
      ...schema.properties.shapes.items.oneOf.flatMap((shape) => Object.keys(shape.properties)),
    ];
    for (const member of new Set(members)) assert.ok(page.includes(`\`${member}\``), `docs/posters-and-api.md does not name \`${member}\``);
  });
});

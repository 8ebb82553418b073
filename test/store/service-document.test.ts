import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { send } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'service-doc-'));
after(() => rmSync(root, { recursive: true, force: true }));
const JSON_ACCEPT = { accept: 'application/json' };

describe('GET / and the settings store', () => {
  it('creates the service document with defaults on first start', async () => {
    const varDir = join(root, 'first');
    await startTestService({ VAR_DIR: varDir });
    const doc = JSON.parse(readFileSync(join(varDir, 'settings', '1.0', 'service.json'), 'utf8'));
    assert.deepEqual(doc, { name: 'problem-service', version: '1.0', links: ['doc', 'problem', 'schema', 'service', 'static'] });
  });

  it('shows what the stored document says', async () => {
    const varDir = join(root, 'custom');
    mkdirSync(join(varDir, 'settings', '1.0'), { recursive: true });
    writeFileSync(join(varDir, 'settings', '1.0', 'service.json'), JSON.stringify({ name: 'Posters', version: '2.1', links: ['static', 'doc'] }));
    const service = await startTestService({ VAR_DIR: varDir });
    const res = await send(service.url, 'GET', '/', JSON_ACCEPT);
    assert.deepEqual(JSON.parse(res.body), {
      name: 'Posters',
      version: '2.1',
      links: { static: `${service.url}/static/`, doc: `${service.url}/doc/` },
    });
  });

  it('answers 404 "Your hydrator directory must be writable." (no-cache: a passing fault) while it is not, logs it, and recovers', async () => {
    const varDir = join(root, 'broken');
    mkdirSync(join(varDir, 'cache', 'test'), { recursive: true });
    writeFileSync(join(varDir, 'cache', 'test', 'hydrators'), 'a file, not a directory');
    const service = await startTestService({ VAR_DIR: varDir });
    const res = await send(service.url, 'GET', '/', { accept: 'application/problem+json' });
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body).detail, 'Your hydrator directory must be writable.');
    assert.equal(res.headers['cache-control'], 'no-cache, private');
    assert.equal(res.headers.expires, undefined);
    assert.equal(res.headers['x-robots-tag'], 'none');
    assert.deepEqual(service.log.lines, [{ channel: 'request', level: 'ERROR', message: 'Your hydrator directory must be writable.' }]);
    rmSync(join(varDir, 'cache', 'test', 'hydrators'));
    const healed = await send(service.url, 'GET', '/', JSON_ACCEPT);
    assert.equal(healed.status, 200);
    assert.equal(JSON.parse(healed.body).name, 'problem-service');
  });

  it('answers 500 for a corrupt document and names the file in the log', async () => {
    const varDir = join(root, 'corrupt');
    mkdirSync(join(varDir, 'settings', '1.0'), { recursive: true });
    const file = join(varDir, 'settings', '1.0', 'service.json');
    writeFileSync(file, '{"name": "half');
    const service = await startTestService({ VAR_DIR: varDir });
    const res = await send(service.url, 'GET', '/', JSON_ACCEPT);
    assert.equal(res.status, 500);
    assert.ok(!res.body.includes(file), 'the file path leaked into a prod answer');
    const line = service.log.lines.find((l) => l.level === 'CRITICAL');
    assert.ok(line !== undefined, 'no CRITICAL line');
    assert.ok(line.message.startsWith(`Uncaught CorruptDocument: "Settings document ${file} is not usable: `), line.message);
    assert.equal((await send(service.url, 'GET', '/x')).status, 404, 'the service keeps serving');
  });

  it('answers 500 for a document of the wrong shape', async () => {
    const varDir = join(root, 'shape');
    mkdirSync(join(varDir, 'settings', '1.0'), { recursive: true });
    writeFileSync(join(varDir, 'settings', '1.0', 'service.json'), JSON.stringify({ name: 'x', version: '1', links: ['admin'] }));
    const service = await startTestService({ VAR_DIR: varDir });
    const res = await send(service.url, 'GET', '/', JSON_ACCEPT);
    assert.equal(res.status, 500);
    assert.match(service.log.lines[0]!.message, /is not usable: "links" must list namespaces among doc, problem, schema, service, static"/);
  });

  /** GET / on a service whose service.json `prepare` made: the answer and the log line that says why. */
  async function answerFor(name: string, prepare: (file: string) => void) {
    const varDir = join(root, name);
    mkdirSync(join(varDir, 'settings', '1.0'), { recursive: true });
    const file = join(varDir, 'settings', '1.0', 'service.json');
    prepare(file);
    const service = await startTestService({ VAR_DIR: varDir });
    const res = await send(service.url, 'GET', '/', JSON_ACCEPT);
    const line = service.log.lines.find((l) => l.level === 'CRITICAL');
    assert.ok(line !== undefined, 'no CRITICAL line');
    assert.ok(!res.body.includes(file), 'the file path leaked into a prod answer');
    return { status: res.status, message: line.message, file };
  }

  it('answers 500 for a service.json over 64 KiB and says so in the log, naming the file', async () => {
    const { status, message, file } = await answerFor('oversized', (file) => {
      writeFileSync(file, JSON.stringify({ name: 'x', version: '1', links: [], pad: 'x'.repeat(64 * 1024) }));
    });
    assert.equal(status, 500);
    assert.ok(message.startsWith(`Uncaught CorruptDocument: "Settings document ${file} is not usable: larger than 65536 bytes"`), message);
  });

  it('answers 500 for a service.json nested deeper than 32 levels, not 404 "hydrator directory"', async () => {
    const { status, message, file } = await answerFor('deep', (file) => writeFileSync(file, '['.repeat(30_000) + ']'.repeat(30_000)));
    assert.equal(status, 500);
    assert.ok(message.startsWith(`Uncaught CorruptDocument: "Settings document ${file} is not usable: nested deeper than 32 levels"`), message);
  });

  it('answers 500 for a service.json that is not a regular file (a link to /dev/null)', async () => {
    const { status, message, file } = await answerFor('device', (file) => symlinkSync('/dev/null', file));
    assert.equal(status, 500);
    assert.ok(message.startsWith(`Uncaught CorruptDocument: "Settings document ${file} is not usable: a character device, not a regular file"`), message);
  });
});

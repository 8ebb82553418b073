import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CorruptDocument, DOCUMENT_MAX_BYTES, DOCUMENT_MAX_DEPTH, StoreNotWritable, createSettingsStore } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'store-'));
after(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const freshStore = () => {
  const varDir = join(root, `v${++count}`);
  return { varDir, store: createSettingsStore({ varDir, appEnv: 'test', recheckMs: 0 }) };
};

describe('settings documents', () => {
  it('stores documents under settings/1.0/<id>.json and reads them back', () => {
    const { varDir, store } = freshStore();
    store.put('service', { name: 'x', n: 1 });
    assert.deepEqual(store.get('service'), { name: 'x', n: 1 });
    assert.deepEqual(JSON.parse(readFileSync(join(varDir, 'settings', '1.0', 'service.json'), 'utf8')), { name: 'x', n: 1 });
  });

  it('gives undefined for a document that does not exist', () => {
    assert.equal(freshStore().store.get('nothing-here'), undefined);
  });

  it('lists ids sorted, ignoring temp and foreign files', () => {
    const { store } = freshStore();
    store.put('b', 1);
    store.put('a-2', 2);
    writeFileSync(join(store.documentsDir, '.b.json.1.ab.tmp'), '{');
    writeFileSync(join(store.documentsDir, 'README.txt'), 'x');
    assert.deepEqual(store.list(), ['a-2', 'b']);
  });

  it('lists nothing before the first write', () => assert.deepEqual(freshStore().store.list(), []));

  for (const id of ['', 'A', 'a_b', '../x', 'a/b', 'a.json', 'x'.repeat(65), 'é']) {
    it(`refuses the id ${JSON.stringify(id)} with a TypeError`, () => {
      const { store } = freshStore();
      assert.throws(() => store.get(id), TypeError, id);
      assert.throws(() => store.put(id, {}), TypeError, id);
    });
  }

  it('writes a document only once with ensure', () => {
    const { store } = freshStore();
    assert.deepEqual(store.ensure('service', { v: 1 }), { v: 1 });
    assert.deepEqual(store.ensure('service', { v: 2 }), { v: 1 });
  });

  it('sees a document another process rewrote', () => {
    const { varDir, store } = freshStore();
    store.put('service', { v: 1 });
    assert.deepEqual(store.get('service'), { v: 1 });
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/fixtures/store-put.ts', varDir, 'service', '{"v":22}']);
    assert.equal(child.status, 0, child.stderr.toString());
    assert.deepEqual(store.get('service'), { v: 22 });
  });
});

describe('the hydrator cache', () => {
  it('keeps the parsed document with the file\'s mtime and size', () => {
    const { store } = freshStore();
    store.put('service', { v: 1 });
    store.get('service');
    const stat = statSync(join(store.documentsDir, 'service.json'));
    const hydrated = JSON.parse(readFileSync(join(store.hydratorDir, 'service.json'), 'utf8'));
    assert.deepEqual(hydrated, { mtimeMs: stat.mtimeMs, size: stat.size, doc: { v: 1 } });
  });

  it('serves reads from the hydrator directory while it matches the document', () => {
    const { varDir, store } = freshStore();
    store.put('service', { v: 1 });
    store.get('service');
    const stat = statSync(join(store.documentsDir, 'service.json'));
    writeFileSync(join(store.hydratorDir, 'service.json'), JSON.stringify({ mtimeMs: stat.mtimeMs, size: stat.size, doc: { from: 'cache' } }));
    const second = createSettingsStore({ varDir, appEnv: 'test' });
    assert.deepEqual(second.get('service'), { from: 'cache' });
  });

  it('fails every read with StoreNotWritable while the hydrator path is a file, and recovers', () => {
    const { varDir, store } = freshStore();
    store.put('service', { v: 1 });
    mkdirSync(join(varDir, 'cache', 'test'), { recursive: true });
    writeFileSync(join(varDir, 'cache', 'test', 'hydrators'), 'not a directory');
    assert.throws(() => store.get('service'), (err: unknown) => {
      assert.ok(err instanceof StoreNotWritable);
      assert.equal(err.status, 404);
      assert.equal(err.message, 'Your hydrator directory must be writable.');
      return true;
    });
    rmSync(join(varDir, 'cache', 'test', 'hydrators'));
    assert.deepEqual(store.get('service'), { v: 1 });
  });

  it('re-checks a healthy hydrator directory only after recheckMs', () => {
    let now = 0;
    const varDir = join(root, `v${++count}`);
    const store = createSettingsStore({ varDir, appEnv: 'test', clock: () => now, recheckMs: 1000 });
    store.put('service', { v: 1 });
    store.get('service');
    rmSync(join(varDir, 'cache', 'test', 'hydrators'), { recursive: true });
    writeFileSync(join(varDir, 'cache', 'test', 'hydrators'), 'blocked');
    now = 999;
    assert.deepEqual(store.get('service'), { v: 1 }, 'served from memory inside the window');
    now = 1000;
    assert.throws(() => store.get('service'), StoreNotWritable);
  });
});

describe('broken documents', () => {
  it('names the file of a document that is not JSON', () => {
    const { store } = freshStore();
    store.put('service', {});
    writeFileSync(join(store.documentsDir, 'service.json'), '{"name": ');
    assert.throws(() => store.get('service'), (err: unknown) => {
      assert.ok(err instanceof CorruptDocument);
      assert.match(err.message, new RegExp(`^Settings document ${join(store.documentsDir, 'service.json')} is not usable: `));
      return true;
    });
  });
});

/** The CorruptDocument message for a refused document of `store`. */
function refusal(store: { get(id: string): unknown }, id: string): string {
  try {
    store.get(id);
  } catch (err) {
    assert.ok(err instanceof CorruptDocument, `not a CorruptDocument: ${String(err)}`);
    return err.message;
  }
  assert.fail('the document was read');
}

/** A JSON object of exactly `bytes` bytes. */
const documentOf = (bytes: number) => `{"pad":"${'x'.repeat(bytes - 10)}"}`;
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const GET_DOCUMENT = fileURLToPath(new URL('./get-document.ts', import.meta.url));

/** What `get(id)` says in a separate process: a read that blocks or never ends is killed, never waited for. */
function getInChild(varDir: string, id: string) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', GET_DOCUMENT, varDir, id], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
  assert.equal(child.signal, null, 'the read was killed: it did not end');
  return child.stdout.trim();
}

describe('bounded documents', () => {
  it('reads a document of exactly DOCUMENT_MAX_BYTES (64 KiB)', () => {
    const { store } = freshStore();
    store.put('service', {});
    writeFileSync(join(store.documentsDir, 'service.json'), documentOf(DOCUMENT_MAX_BYTES));
    assert.equal(DOCUMENT_MAX_BYTES, 64 * 1024);
    assert.equal((store.get('service') as { pad: string }).pad.length, DOCUMENT_MAX_BYTES - 10);
  });

  it('refuses a document of DOCUMENT_MAX_BYTES + 1, naming the file and the bound', () => {
    const { store } = freshStore();
    store.put('service', {});
    const path = join(store.documentsDir, 'service.json');
    writeFileSync(path, documentOf(DOCUMENT_MAX_BYTES + 1));
    assert.equal(refusal(store, 'service'), `Settings document ${path} is not usable: larger than 65536 bytes`);
  });

  it('refuses to store a document whose file would be over DOCUMENT_MAX_BYTES, keeping the old one', () => {
    const { store } = freshStore();
    store.put('service', { v: 1 });
    // JSON.stringify(doc, null, 2) plus the newline: `{\n  "pad": "…"\n}\n` is 16 bytes around the text.
    store.put('service', { pad: 'x'.repeat(DOCUMENT_MAX_BYTES - 16) });
    assert.throws(() => store.put('service', { pad: 'x'.repeat(DOCUMENT_MAX_BYTES - 15) }), {
      name: 'RangeError',
      message: 'settings document service would be larger than 65536 bytes',
    });
    assert.equal((store.get('service') as { pad: string }).pad.length, DOCUMENT_MAX_BYTES - 16);
  });

  it('reads a document nested DOCUMENT_MAX_DEPTH (32) deep', () => {
    const { store } = freshStore();
    store.put('service', {});
    writeFileSync(join(store.documentsDir, 'service.json'), nested(DOCUMENT_MAX_DEPTH));
    assert.equal(DOCUMENT_MAX_DEPTH, 32);
    assert.equal(JSON.stringify(store.get('service')), nested(DOCUMENT_MAX_DEPTH));
  });

  it('refuses a document nested DOCUMENT_MAX_DEPTH + 1 deep, saying so', () => {
    const { store } = freshStore();
    store.put('service', {});
    const path = join(store.documentsDir, 'service.json');
    writeFileSync(path, nested(DOCUMENT_MAX_DEPTH + 1));
    assert.equal(refusal(store, 'service'), `Settings document ${path} is not usable: nested deeper than 32 levels`);
  });

  it('refuses 30,000 levels of nesting as such, never as an unwritable hydrator directory', () => {
    const { store } = freshStore();
    store.put('service', {});
    const path = join(store.documentsDir, 'service.json');
    writeFileSync(path, nested(30_000));
    assert.equal(refusal(store, 'service'), `Settings document ${path} is not usable: nested deeper than 32 levels`);
  });

  it('refuses a document that is a directory', () => {
    const { store } = freshStore();
    mkdirSync(join(store.documentsDir, 'service.json'), { recursive: true });
    assert.equal(refusal(store, 'service'), `Settings document ${join(store.documentsDir, 'service.json')} is not usable: a directory, not a regular file`);
  });

  it('refuses a symbolic link to /dev/zero at once', () => {
    const { varDir, store } = freshStore();
    mkdirSync(store.documentsDir, { recursive: true });
    const path = join(store.documentsDir, 'service.json');
    symlinkSync('/dev/zero', path);
    assert.equal(getInChild(varDir, 'service'), `CorruptDocument: Settings document ${path} is not usable: a character device, not a regular file`);
  });

  it('refuses a FIFO at once, without waiting for a writer', () => {
    const { varDir, store } = freshStore();
    mkdirSync(store.documentsDir, { recursive: true });
    const path = join(store.documentsDir, 'service.json');
    spawnSync('mkfifo', [path]);
    assert.equal(getInChild(varDir, 'service'), `CorruptDocument: Settings document ${path} is not usable: a FIFO, not a regular file`);
  });

  it('parses the document again when its hydrated copy is a FIFO, and replaces the copy', () => {
    const { varDir, store } = freshStore();
    store.put('service', { v: 1 });
    mkdirSync(store.hydratorDir, { recursive: true });
    spawnSync('mkfifo', [join(store.hydratorDir, 'service.json')]);
    assert.equal(getInChild(varDir, 'service'), '{"v":1}');
    assert.ok(statSync(join(store.hydratorDir, 'service.json')).isFile(), 'the FIFO is still there');
  });

  it('parses the document again when its hydrated copy is over HYDRATED_MAX_BYTES', () => {
    const { varDir, store } = freshStore();
    store.put('service', { v: 1 });
    store.get('service');
    const stat = statSync(join(store.documentsDir, 'service.json'));
    const pad = 'x'.repeat(8 * DOCUMENT_MAX_BYTES);
    writeFileSync(join(store.hydratorDir, 'service.json'), JSON.stringify({ mtimeMs: stat.mtimeMs, size: stat.size, doc: { from: 'cache', pad } }));
    assert.deepEqual(createSettingsStore({ varDir, appEnv: 'test' }).get('service'), { v: 1 });
  });
});

describe('atomic writes', () => {
  it('leaves the old document whole when the writer dies between write and rename', () => {
    const { varDir, store } = freshStore();
    store.put('service', { v: 'old' });
    const child = spawnSync(process.execPath, [
      '--import', 'tsx', '--import', './test/fixtures/crash-before-rename.mjs', 'test/fixtures/store-put.ts', varDir, 'service', '{"v":"new"}',
    ]);
    assert.equal(child.signal, 'SIGKILL', child.stderr.toString());
    assert.deepEqual(store.get('service'), { v: 'old' });
    const temps = readdirSync(store.documentsDir).filter((n) => n.endsWith('.tmp'));
    assert.equal(temps.length, 1, 'the dead writer\'s temp file is there, and only it');
    assert.deepEqual(JSON.parse(readFileSync(join(store.documentsDir, temps[0]!), 'utf8')), { v: 'new' });
    assert.deepEqual(store.list(), ['service']);
    assert.ok(existsSync(join(store.documentsDir, 'service.json')));
  });
});

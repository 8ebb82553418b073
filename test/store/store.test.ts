import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CorruptDocument, StoreNotWritable, createSettingsStore } from '../../src/store/index.js';

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

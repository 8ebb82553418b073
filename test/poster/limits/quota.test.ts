import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../../src/jwt/index.js';
import { posterFileName } from '../../../src/poster/library.js';
import { InsufficientStorage, parseLedger, PosterUsage, USAGE_LEDGER } from '../../../src/poster/limits/quota.js';
import { problemOf, send } from '../../helpers/http.js';
import { startTestService } from '../../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-quota-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh posters directory holding the given files (name -> size). */
function postersDir(files: Record<string, number> = {}): string {
  const dir = join(root, `posters-${++n}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, size] of Object.entries(files)) writeFileSync(join(dir, name), Buffer.alloc(size));
  return dir;
}

/** What another process does when it writes a poster: the file, then its ledger line. */
async function writeAs(usage: PosterUsage, dir: string, name: string, size: number): Promise<void> {
  writeFileSync(join(dir, name), Buffer.alloc(size));
  await usage.recordWritten({ name, bytes: size });
}

describe('PosterUsage', () => {
  it('counts the directory with one walk at start-up, leaving out dotfiles (the ledger, temp files)', async () => {
    const dir = postersDir({ 'a.jpg': 100, 'b.jpg': 250, '.0123.tmp': 999 });
    writeFileSync(join(dir, USAGE_LEDGER), '+999 gone.jpg\n');
    const usage = new PosterUsage(dir, 1000);
    await usage.refresh();
    assert.equal(usage.total, 350);
  });

  it('counts nothing when the directory does not exist yet', async () => {
    const usage = new PosterUsage(join(root, 'never-made'), 1000);
    await usage.refresh();
    assert.equal(usage.total, 0);
  });

  it('refuses before rendering when the total is already at the cap', async () => {
    const usage = new PosterUsage(postersDir({ 'a.jpg': 1000 }), 1000);
    await assert.rejects(usage.checkRoom(), (err: unknown) => {
      assert.ok(err instanceof InsufficientStorage);
      assert.equal(err.status, 507);
      assert.equal(err.message, 'The poster store is full: it holds 1000 of its 1000 bytes (POSTER_MAX_BYTES), so no new poster can be written. Existing posters can still be asked for.');
      return true;
    });
  });

  it('refuses a poster that would pass the cap and takes one that reaches it exactly', async () => {
    const usage = new PosterUsage(postersDir({ 'a.jpg': 900 }), 1000);
    await assert.rejects(usage.reserve(101), InsufficientStorage);
    const reservation = await usage.reserve(100);
    reservation.release();
  });

  it('never lets two requests of one process pass the cap together', async () => {
    const usage = new PosterUsage(postersDir({ 'a.jpg': 800 }), 1000);
    const results = await Promise.allSettled([usage.reserve(150), usage.reserve(150)]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  });

  it('sees a poster another process wrote through the ledger, with no walk per request', async () => {
    const dir = postersDir({ 'a.jpg': 100 });
    const mine = new PosterUsage(dir, 10_000);
    const other = new PosterUsage(dir, 10_000);
    await Promise.all([mine.refresh(), other.refresh()]);
    await writeAs(other, dir, 'b.jpg', 400);
    // A file dropped in by hand has no ledger line: only a walk would see it, and none happens.
    writeFileSync(join(dir, 'by-hand.jpg'), Buffer.alloc(7));
    await mine.refresh();
    assert.equal(mine.total, 500);
    assert.equal(readFileSync(join(dir, USAGE_LEDGER), 'utf8'), '+400 b.jpg\n');
  });

  it('counts a poster once when both the walk and the ledger list it', async () => {
    const dir = postersDir();
    const writer = new PosterUsage(dir, 10_000);
    await writer.refresh();
    await writeAs(writer, dir, 'a.jpg', 300);
    const starting = new PosterUsage(dir, 10_000);
    await starting.refresh();
    await writeAs(writer, dir, 'a.jpg', 300); // the same name again, as a racing writer would
    await starting.refresh();
    assert.equal(starting.total, 300);
  });

  it('keeps the total across a restart: the walk finds what the ledger said', async () => {
    const dir = postersDir();
    const before = new PosterUsage(dir, 10_000);
    await before.refresh();
    await writeAs(before, dir, 'a.jpg', 321);
    const after = new PosterUsage(dir, 10_000);
    await after.refresh();
    assert.equal(after.total, 321);
  });

  it('walks again when the ledger is deleted, so posters removed by hand free their bytes', async () => {
    const dir = postersDir();
    const usage = new PosterUsage(dir, 10_000);
    await usage.refresh();
    await writeAs(usage, dir, 'a.jpg', 300);
    await writeAs(usage, dir, 'b.jpg', 200);
    await usage.refresh();
    assert.equal(usage.total, 500);
    unlinkSync(join(dir, 'a.jpg'));
    unlinkSync(join(dir, USAGE_LEDGER));
    await usage.refresh();
    assert.equal(usage.total, 200);
  });
});

describe('parseLedger', () => {
  it('leaves a line still being written for the next read', () => {
    assert.deepEqual(parseLedger('+10 a.jpg\n+2'), { records: [{ bytes: 10, name: 'a.jpg' }], consumed: 10 });
  });

  it('skips damaged lines', () => {
    assert.deepEqual(parseLedger('garbage\n+x a.jpg\n+5 ../up\n+5 .usage\n+7 b.jpg\n').records, [{ bytes: 7, name: 'b.jpg' }]);
  });
});

describe('POST /api/posters within POSTER_MAX_BYTES', async () => {
  const PASS = 'quota passphrase';
  const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
  writeKeyPair(keyPaths, PASS, false);
  const token = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'quota', 3600, Date.now());
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const CAP = 50_000;
  const publicDir = join(root, 'public');
  const dir = join(publicDir, 'posters');
  mkdirSync(dir, { recursive: true });
  // Room for 1,000 more bytes: less than any poster.
  writeFileSync(join(dir, 'filler.bin'), Buffer.alloc(CAP - 1000));
  const existingSpec = { title: 'Already here' };
  const existingName = posterFileName(existingSpec);
  writeFileSync(join(dir, existingName), Buffer.alloc(777));
  const api = await startTestService({
    POSTER_API: '1',
    PUBLIC_DIR: publicDir,
    POSTER_MAX_BYTES: String(CAP),
    JWT_SECRET_KEY: keyPaths.secretKeyPath,
    JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
    JWT_PASSPHRASE: PASS,
  }, { renderPool: { size: 1 } });
  const post = (spec: unknown) => send(api.url, 'POST', '/api/posters', headers, JSON.stringify(spec));

  it('answers 507 to a new poster that would pass the cap, logs it and writes nothing', async () => {
    const before = readdirSync(dir).sort();
    api.log.clear();
    const res = await post({ title: 'One too many' });
    assert.equal(res.status, 507);
    const problem = problemOf(res);
    assert.equal(problem.title, 'Insufficient Storage');
    assert.equal(problem.detail, `The poster store is full: it holds ${CAP - 1000 + 777} of its ${CAP} bytes (POSTER_MAX_BYTES), so no new poster can be written. Existing posters can still be asked for.`);
    assert.deepEqual(readdirSync(dir).sort(), before, 'a file was written');
    assert.ok(api.log.lines.some((l) => l.channel === 'request' && l.level === 'CRITICAL' && l.message === problem.detail), JSON.stringify(api.log.lines));
  });

  it('still answers 201 for an existing poster (same spec, same name) without rendering it', async () => {
    const res = await post(existingSpec);
    assert.equal(res.status, 201, res.body);
    assert.equal(res.headers.location, `${api.url}/static/posters/${existingName}`);
    assert.equal(JSON.parse(res.body).bytes, 777);
    assert.equal(statSync(join(dir, existingName)).size, 777, 'rewritten');
  });

  it('writes a poster that fits and appends its ledger line for the other processes', async () => {
    const roomy = await startTestService({
      POSTER_API: '1',
      PUBLIC_DIR: join(root, 'roomy'),
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
    }, { renderPool: { size: 1 } });
    const res = await send(roomy.url, 'POST', '/api/posters', headers, JSON.stringify({ title: 'Fits' }));
    assert.equal(res.status, 201, res.body);
    const { bytes, url } = JSON.parse(res.body) as { bytes: number; url: string };
    const name = url.slice(url.lastIndexOf('/') + 1);
    const roomyDir = join(root, 'roomy', 'posters');
    assert.equal(readFileSync(join(roomyDir, USAGE_LEDGER), 'utf8'), `+${bytes} ${name}\n`);
    assert.equal(statSync(join(roomyDir, name)).size, bytes);
    assert.deepEqual(readdirSync(roomyDir).sort(), [USAGE_LEDGER, name].sort(), 'a temp file was left');
  });
});

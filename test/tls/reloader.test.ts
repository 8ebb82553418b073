import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, unwatchFile, utimesSync, watchFile, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readTlsCredentials, watchTlsCredentials, type CredentialReloader, type CredentialReloaderOptions, type TlsCredentials, type TlsFiles } from '../../src/tls/index.js';
import { eventually } from '../helpers/eventually.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
/** Inside every good fixture's validity (2025-01-01 to 2125-01-01). */
const NOW = Date.UTC(2030, 0, 1);
const DAY_MS = 24 * 60 * 60 * 1000;
const APPLIED_1002 = 'INFO TLS certificate reloaded (serial 1001 -> 1002, localhost, valid until 2125-01-01T00:00:00.000Z) on file change';

/** A temp dir for one test holding the localhost pair as cert.pem and key.pem, removed after it. */
function pairDir(t: TestContext): { dir: string; files: TlsFiles } {
  const dir = mkdtempSync(join(tmpdir(), 'tls-reloader-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(fixture('localhost-chain.pem'), join(dir, 'cert.pem'));
  copyFileSync(fixture('localhost.key'), join(dir, 'key.pem'));
  return { dir, files: { certPath: join(dir, 'cert.pem'), keyPath: join(dir, 'key.pem'), passphrase: '' } };
}

/** A reloader and what it did: the credentials applied, the lines logged (`LEVEL line`), how many times it read the pair. */
interface Watched {
  readonly reloader: CredentialReloader;
  readonly applied: TlsCredentials[];
  readonly lines: string[];
  readonly reads: () => number;
  readonly files: TlsFiles;
  /** How long a change takes to be read when nothing is late: a poll and the settle. */
  readonly readWithinMs: number;
}

/** Starts a reloader on `files` as they are now (closed after the test); polls every 20 ms and settles for 20 ms unless told. */
function watch(t: TestContext, files: TlsFiles, options: Partial<Pick<CredentialReloaderOptions, 'apply' | 'pollMs' | 'settleMs'>> & { now?: number } = {}): Watched {
  const now = options.now ?? NOW;
  const pollMs = options.pollMs ?? 20;
  const settleMs = options.settleMs ?? 20;
  const started = readTlsCredentials(files, now);
  assert.ok(started.ok, 'the pair a test starts with is good');
  const applied: TlsCredentials[] = [];
  const lines: string[] = [];
  let reads = 0;
  const reloader = watchTlsCredentials({
    files,
    current: started.credentials,
    apply: (credentials) => {
      options.apply?.(credentials);
      applied.push(credentials);
    },
    log: (level, line) => lines.push(`${level} ${line}`),
    // Called once per read of the pair: how a test knows a read happened.
    clock: () => {
      reads++;
      return now;
    },
    pollMs,
    settleMs,
  });
  t.after(() => reloader.close());
  return { reloader, applied, lines, reads: () => reads, files, readWithinMs: pollMs + settleMs };
}

/**
 * Resolves once the reloader's watchers have taken their first look at the files: fs.watchFile
 * reports changes against it, so a change made before it would go unseen. A read after the
 * certificate was touched (same bytes, a new mtime) is the only sign of it; the touch is
 * repeated, further apart each time (a touch seen restarts the settle), until one is read.
 */
async function untilWatching(watched: Watched): Promise<void> {
  for (let touch = 1, patience = 2 * watched.readWithinMs + 20; ; touch++, patience *= 2) {
    const before = watched.reads();
    const mtime = new Date(Date.UTC(2001, 0, 1) + touch * 1000);
    utimesSync(watched.files.certPath, mtime, mtime);
    try {
      await eventually('a read after the certificate was touched', watched.reads, (reads) => reads > before, patience);
      return;
    } catch (err) {
      if (patience > 10_000) throw err;
    }
  }
}

/** Puts a copy of `source` in place of `path` by rename, as most deploy tools do. */
function renameOver(source: string, path: string): void {
  copyFileSync(source, `${path}.new`);
  renameSync(`${path}.new`, path);
}

/** Writes `source`'s bytes into `path` itself: the same inode, truncated and written. */
function rewriteInPlace(source: string, path: string): void {
  writeFileSync(path, readFileSync(source));
}

describe('watchTlsCredentials', () => {
  it('applies a pair renamed over the files, and says so in one INFO line', async (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files);
    await untilWatching(watched);
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    renameOver(fixture('rotated.key'), files.keyPath);
    await eventually('the rotated pair applied', () => watched.applied.length, (n) => n > 0);
    assert.deepEqual(watched.applied.map((c) => c.serial), ['1002']);
    assert.equal(watched.applied[0]!.cert, readFileSync(fixture('rotated-chain.pem'), 'utf8'));
    await eventually('the INFO line', () => watched.lines.length, (n) => n > 0);
    assert.deepEqual(watched.lines, [APPLIED_1002]);
  });

  it('applies a pair rewritten in place', async (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files);
    await untilWatching(watched);
    rewriteInPlace(fixture('rotated-chain.pem'), files.certPath);
    rewriteInPlace(fixture('rotated.key'), files.keyPath);
    await eventually('the rotated pair applied', () => watched.applied.length, (n) => n > 0);
    assert.deepEqual(watched.applied.map((c) => c.serial), ['1002']);
    assert.deepEqual(watched.lines, [APPLIED_1002]);
  });

  it("applies a pair whose symbolic links were swapped to new files (certbot's live/ and archive/)", async (t) => {
    const { dir } = pairDir(t);
    const archive = join(dir, 'archive');
    const live = join(dir, 'live');
    mkdirSync(archive);
    mkdirSync(live);
    copyFileSync(fixture('localhost-chain.pem'), join(archive, 'fullchain1.pem'));
    copyFileSync(fixture('localhost.key'), join(archive, 'privkey1.pem'));
    symlinkSync('../archive/fullchain1.pem', join(live, 'fullchain.pem'));
    symlinkSync('../archive/privkey1.pem', join(live, 'privkey.pem'));
    const watched = watch(t, { certPath: join(live, 'fullchain.pem'), keyPath: join(live, 'privkey.pem'), passphrase: '' });
    await untilWatching(watched);
    // The renewal: new archive files, then each link replaced by one pointing at its new file.
    copyFileSync(fixture('rotated-chain.pem'), join(archive, 'fullchain2.pem'));
    copyFileSync(fixture('rotated.key'), join(archive, 'privkey2.pem'));
    for (const [name, target] of [['fullchain.pem', 'fullchain2.pem'], ['privkey.pem', 'privkey2.pem']] as const) {
      symlinkSync(`../archive/${target}`, join(live, `${name}.new`));
      renameSync(join(live, `${name}.new`), join(live, name));
    }
    await eventually('the rotated pair applied', () => watched.applied.length, (n) => n > 0);
    assert.deepEqual(watched.applied.map((c) => c.serial), ['1002']);
    assert.deepEqual(watched.lines, [APPLIED_1002]);
  });

  it('keeps the pair in use when the new key does not match, naming the mismatch, then applies the fixed pair', async (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files);
    await untilWatching(watched);
    renameOver(fixture('stranger.key'), files.keyPath);
    await eventually('the ERROR line', () => watched.lines.length, (n) => n > 0);
    assert.deepEqual(watched.lines, [
      `ERROR TLS certificate not reloaded on file change: TLS_KEY ${files.keyPath} is not the key of the TLS_CERT certificate (serial 1001); the previous one (serial 1001) stays in use`,
    ]);
    assert.equal(watched.applied.length, 0, 'a pair was applied');
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    renameOver(fixture('rotated.key'), files.keyPath);
    await eventually('the rotated pair applied', () => watched.applied.length, (n) => n > 0);
    assert.deepEqual(watched.applied.map((c) => c.serial), ['1002']);
    assert.deepEqual(watched.lines.slice(1), [APPLIED_1002]);
  });

  it('reads the pair only once changes settle: a key replaced after its certificate is waited for', async (t) => {
    const { files } = pairDir(t);
    // A long settle against a short poll: the key's change is seen long before the read is due.
    const watched = watch(t, files, { pollMs: 10, settleMs: 1000 });
    await untilWatching(watched);
    // fs.watchFile gives one path one poller, so this listener is told of a change in the same
    // round as the reloader's: when it is, the reloader has seen the lone certificate.
    let seen = 0;
    const witness = () => seen++;
    watchFile(files.certPath, { interval: 10, persistent: false }, witness);
    t.after(() => unwatchFile(files.certPath, witness));
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    await eventually('the new certificate seen', () => seen, (n) => n > 0);
    renameOver(fixture('rotated.key'), files.keyPath);
    await eventually('the rotated pair applied', () => watched.applied.length, (n) => n > 0);
    assert.deepEqual(watched.lines, [APPLIED_1002], 'the certificate was read without its key');
  });

  it('applies nothing and logs nothing on reload(SIGHUP) when the files are unchanged', (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files);
    assert.equal(watched.reloader.reload('SIGHUP'), false);
    assert.equal(watched.reads(), 1, 'the pair was read');
    assert.equal(watched.applied.length, 0, 'a pair was applied');
    assert.deepEqual(watched.lines, []);
  });

  it('applies a change at once on reload(SIGHUP), before any poll', (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files, { pollMs: 60_000, settleMs: 60_000 });
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    renameOver(fixture('rotated.key'), files.keyPath);
    assert.equal(watched.reloader.reload('SIGHUP'), true);
    assert.deepEqual(watched.applied.map((c) => c.serial), ['1002']);
    assert.deepEqual(watched.lines, ['INFO TLS certificate reloaded (serial 1001 -> 1002, localhost, valid until 2125-01-01T00:00:00.000Z) on SIGHUP']);
    assert.equal(watched.reloader.reload('SIGHUP'), false, 'the pair now in use is the rotated one');
    assert.equal(watched.lines.length, 1);
  });

  it('says a refusal on SIGHUP once, not again when the watcher then sees the same files changed', async (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files);
    await untilWatching(watched);
    renameOver(fixture('stranger.key'), files.keyPath);
    assert.equal(watched.reloader.reload('SIGHUP'), false);
    const refusal = `TLS_KEY ${files.keyPath} is not the key of the TLS_CERT certificate (serial 1001); the previous one (serial 1001) stays in use`;
    assert.deepEqual(watched.lines, [`ERROR TLS certificate not reloaded on SIGHUP: ${refusal}`]);
    const readsBefore = watched.reads();
    await eventually('the watcher reading the changed files', () => watched.reads(), (n) => n > readsBefore);
    assert.deepEqual(watched.lines, [`ERROR TLS certificate not reloaded on SIGHUP: ${refusal}`], 'the same refusal said twice');
    // Another SIGHUP is an operator asking again: it is answered.
    assert.equal(watched.reloader.reload('SIGHUP'), false);
    assert.equal(watched.lines.length, 2);
  });

  it('names every problem of a broken pair in one ERROR line', (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files, { pollMs: 60_000 });
    renameOver(fixture('expired-chain.pem'), files.certPath);
    unlinkSync(files.keyPath);
    assert.equal(watched.reloader.reload('SIGHUP'), false);
    assert.equal(watched.applied.length, 0, 'a pair was applied');
    assert.deepEqual(watched.lines, [
      `ERROR TLS certificate not reloaded on SIGHUP: TLS_CERT certificate (serial 1003) expired on 2021-01-01T00:00:00.000Z; TLS_KEY ${files.keyPath}: no such file; the previous one (serial 1001) stays in use`,
    ]);
  });

  it('keeps the pair in use when apply refuses the new one, and tries it again on the next reload', (t) => {
    const { files } = pairDir(t);
    let refuse = true;
    const watched = watch(t, files, {
      pollMs: 60_000,
      apply: () => {
        if (refuse) throw new Error('ee key too small');
      },
    });
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    renameOver(fixture('rotated.key'), files.keyPath);
    assert.equal(watched.reloader.reload('SIGHUP'), false);
    assert.deepEqual(watched.lines, ['ERROR TLS certificate not reloaded on SIGHUP: ee key too small; the previous one (serial 1001) stays in use']);
    refuse = false;
    assert.equal(watched.reloader.reload('SIGHUP'), true);
    assert.deepEqual(watched.applied.map((c) => c.serial), ['1002']);
    assert.equal(watched.lines[1], 'INFO TLS certificate reloaded (serial 1001 -> 1002, localhost, valid until 2125-01-01T00:00:00.000Z) on SIGHUP');
  });

  it('warns after the INFO line when the new certificate expires within 14 days', (t) => {
    const { files } = pairDir(t);
    const watched = watch(t, files, { pollMs: 60_000, now: Date.UTC(2125, 0, 1) - 10 * DAY_MS });
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    renameOver(fixture('rotated.key'), files.keyPath);
    assert.equal(watched.reloader.reload('SIGHUP'), true);
    assert.deepEqual(watched.lines, [
      'INFO TLS certificate reloaded (serial 1001 -> 1002, localhost, valid until 2125-01-01T00:00:00.000Z) on SIGHUP',
      'WARNING TLS_CERT expires on 2125-01-01T00:00:00.000Z, in 10 days',
    ]);
  });

  it('stops applying once closed, on a file change or SIGHUP', async (t) => {
    const { files } = pairDir(t);
    const closed = watch(t, files);
    await untilWatching(closed);
    closed.reloader.close();
    const readsWhenClosed = closed.reads();
    // A second reloader on the same files: one poller serves both paths' listeners, and equal
    // settle timers fire in the order they were set, so had the closed one still listened, it
    // would have applied the change before this one.
    const open = watch(t, files);
    await untilWatching(open);
    renameOver(fixture('rotated-chain.pem'), files.certPath);
    renameOver(fixture('rotated.key'), files.keyPath);
    await eventually('the open reloader applies the change', () => open.applied.length, (n) => n > 0);
    assert.equal(closed.reloader.reload('SIGHUP'), false);
    assert.deepEqual(closed.applied, []);
    assert.deepEqual(closed.lines, []);
    assert.equal(closed.reads(), readsWhenClosed, 'the closed reloader read the pair');
  });

  it('survives a log that throws, in its timer', async (t) => {
    const { files } = pairDir(t);
    const started = readTlsCredentials(files, NOW);
    assert.ok(started.ok);
    let logged = 0;
    let reads = 0;
    const reloader = watchTlsCredentials({
      files,
      current: started.credentials,
      apply: () => {},
      log: () => {
        logged++;
        throw new Error('the log is gone');
      },
      clock: () => {
        reads++;
        return NOW;
      },
      pollMs: 20,
      settleMs: 20,
    });
    t.after(() => reloader.close());
    await untilWatching({ reloader, applied: [], lines: [], reads: () => reads, files, readWithinMs: 40 });
    renameOver(fixture('stranger.key'), files.keyPath);
    await eventually('the ERROR line attempted', () => logged, (n) => n > 0);
    // An exception out of the timer would fail this test as an uncaught one; a later change is still read.
    const readsBefore = reads;
    renameOver(fixture('localhost.key'), files.keyPath);
    await eventually('the next change read', () => reads, (n) => n > readsBefore);
  });
});

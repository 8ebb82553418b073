/**
 * The certbot deploy hook, deploy/certbot/problem-service-deploy-hook, run for real with `sh` as
 * certbot runs it (docs/deployment.md, "HTTPS without a proxy"): into a temporary directory
 * (PROBLEM_SERVICE_TLS_DIR), for a group the test may give files (PROBLEM_SERVICE_GROUP), from a
 * lineage laid out as certbot's (live/ links into archive/). systemd does not run here: a
 * `systemctl` put first on PATH notes each call and, given the service's pid as MAINPID, does
 * what the unit's ExecReload says. Needs sh, coreutils' install and mv, and root or a
 * supplementary group; fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { handshake, TLS_FIXTURES } from '../helpers/https.js';
import { readErrorLog } from '../helpers/log-files.js';
import { runServerProgram } from '../helpers/service.js';
import { environmentOf, readUnitFile, serviceValues } from '../helpers/systemd-unit.js';

const HOOK = resolve('deploy/certbot/problem-service-deploy-hook');
const [EXEC_RELOAD] = serviceValues(readUnitFile('deploy/systemd/problem-service.service'), 'ExecReload');
const dropInEnv = environmentOf(readUnitFile('deploy/systemd/https.conf'));

const root = mkdtempSync(join(tmpdir(), 'certbot-hook-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The pairs certbot would hand over: the first certificate, then its renewal. */
const FIRST = { chain: 'localhost-chain.pem', key: 'localhost.key', serial: serialOf('localhost.pem') };
const RENEWED = { chain: 'rotated-chain.pem', key: 'rotated.key', serial: serialOf('rotated.pem') };

function serialOf(file: string): string {
  return new X509Certificate(readFileSync(join(TLS_FIXTURES, file))).serialNumber;
}

/** A group other than the test's own that it may give a file (root: any), so `-g` is seen to act. */
function otherGroup(): { name: string; gid: number } {
  const own = process.getgid!();
  const allowed = (gid: number) => gid !== own && (process.getuid!() === 0 || process.getgroups!().includes(gid));
  for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
    const [name, , gid] = line.split(':');
    if (name && gid && allowed(Number(gid))) return { name, gid: Number(gid) };
  }
  throw new Error('the hook test needs root, or a supplementary group, to see the key given a group');
}
const group = otherGroup();

let dirs = 0;
/** A new directory under the test's root; `mode` as the drop-in's install step makes the TLS one. */
function newDir(name: string, mode = 0o755): string {
  const dir = join(root, `${name}-${++dirs}`);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, mode);
  return dir;
}

/** A certbot lineage for `pair`: live/<name>/*.pem, links into archive/<name>/*1.pem. */
function lineage(pair: { chain: string; key: string }, files: readonly ('fullchain' | 'privkey')[] = ['fullchain', 'privkey']): string {
  const base = newDir('letsencrypt');
  const archive = join(base, 'archive/example.com');
  const live = join(base, 'live/example.com');
  mkdirSync(archive, { recursive: true });
  mkdirSync(live, { recursive: true });
  const source = { fullchain: pair.chain, privkey: pair.key };
  for (const file of files) {
    writeFileSync(join(archive, `${file}1.pem`), readFileSync(join(TLS_FIXTURES, source[file])));
    symlinkSync(`../../archive/example.com/${file}1.pem`, join(live, `${file}.pem`));
  }
  return live;
}

/** A stand-in for systemctl in a directory of its own, and the file it notes its calls in. */
function fakeSystemctl(): { bin: string; calls: string } {
  const bin = newDir('bin');
  const calls = join(bin, 'calls');
  writeFileSync(calls, '');
  // ExecReload is run by sh here, systemd's own expansion of $MAINPID being the shell's.
  writeFileSync(join(bin, 'systemctl'), [
    '#!/bin/sh',
    `printf '%s\\n' "$*" >> '${calls}'`,
    'if [ "$*" = "reload problem-service" ] && [ -n "${MAINPID:-}" ]; then exec /bin/sh -c "$EXEC_RELOAD"; fi',
    '',
  ].join('\n'), { mode: 0o755 });
  return { bin, calls };
}

const callsOf = (calls: string) => readFileSync(calls, 'utf8').split('\n').filter(Boolean);

/** Runs the hook with `sh` as certbot would after a renewal of `live`; resolves to its exit code and stderr. */
function runHook(tlsDir: string, live: string, systemctl: { bin: string }, more: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const env = {
    PATH: `${systemctl.bin}:${process.env.PATH}`,
    RENEWED_LINEAGE: live,
    PROBLEM_SERVICE_TLS_DIR: tlsDir,
    PROBLEM_SERVICE_GROUP: group.name,
    EXEC_RELOAD: EXEC_RELOAD ?? '',
    ...more,
  };
  return new Promise((done) => {
    execFile('sh', [HOOK], { env }, (err, _stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stderr }));
  });
}

/** What the TLS directory holds: each file's mode, group and whether it is `pair`'s file. */
function assertHolds(tlsDir: string, pair: { chain: string; key: string }): void {
  assert.deepEqual(readdirSync(tlsDir).sort(), ['fullchain.pem', 'privkey.pem'], 'nothing else left in the directory');
  const chain = statSync(join(tlsDir, 'fullchain.pem'));
  const key = statSync(join(tlsDir, 'privkey.pem'));
  assert.ok(chain.isFile() && key.isFile(), 'regular files, not links into the lineage');
  assert.equal((chain.mode & 0o7777).toString(8), '644', 'fullchain.pem mode');
  assert.equal((key.mode & 0o7777).toString(8), '640', 'privkey.pem mode');
  assert.equal(key.gid, group.gid, 'privkey.pem group');
  assert.ok(readFileSync(join(tlsDir, 'fullchain.pem')).equals(readFileSync(join(TLS_FIXTURES, pair.chain))), 'fullchain.pem is the lineage\'s');
  assert.ok(readFileSync(join(tlsDir, 'privkey.pem')).equals(readFileSync(join(TLS_FIXTURES, pair.key))), 'privkey.pem is the lineage\'s');
}

describe('deploy/certbot/problem-service-deploy-hook', () => {
  it('installs the lineage\'s chain (0644) and key (0640, the service\'s group) into an empty directory and asks for a reload', async () => {
    const tlsDir = newDir('tls', 0o750);
    const systemctl = fakeSystemctl();
    const run = await runHook(tlsDir, lineage(FIRST), systemctl);
    assert.equal(run.code, 0, run.stderr);
    assertHolds(tlsDir, FIRST);
    assert.deepEqual(callsOf(systemctl.calls), ['reload problem-service']);
  });

  it('renames the renewed files over the old ones, never writing where the service reads', async () => {
    const tlsDir = newDir('tls', 0o750);
    const systemctl = fakeSystemctl();
    assert.equal((await runHook(tlsDir, lineage(FIRST), systemctl)).code, 0);
    // inotify, in order: a file written in place is a 'change' on its name; one renamed into
    // place is a 'rename'. A last file of the test's own marks the end of the hook's events.
    const events: string[] = [];
    const watcher = watch(tlsDir, (event, name) => events.push(`${event} ${name}`));
    try {
      const run = await runHook(tlsDir, lineage(RENEWED), systemctl);
      assert.equal(run.code, 0, run.stderr);
      writeFileSync(join(tlsDir, 'end'), '');
      await eventually('the end of the hook\'s file events', () => events, (seen) => seen.includes('rename end'));
    } finally {
      watcher.close();
      unlinkSync(join(tlsDir, 'end'));
    }
    const final = events.filter((event) => / (fullchain|privkey)\.pem$/.test(event));
    assert.deepEqual(final, ['rename fullchain.pem', 'rename privkey.pem'], `events: ${events.join(', ')}`);
    assertHolds(tlsDir, RENEWED);
    assert.deepEqual(callsOf(systemctl.calls), ['reload problem-service', 'reload problem-service']);
  });

  it('fails, leaving the pair in use and asking no reload, when the lineage lacks the key', async () => {
    const tlsDir = newDir('tls', 0o750);
    const systemctl = fakeSystemctl();
    assert.equal((await runHook(tlsDir, lineage(FIRST), systemctl)).code, 0);
    const run = await runHook(tlsDir, lineage(RENEWED, ['fullchain']), systemctl);
    assert.notEqual(run.code, 0);
    assert.ok(readFileSync(join(tlsDir, 'fullchain.pem')).equals(readFileSync(join(TLS_FIXTURES, FIRST.chain))), 'the old chain stays');
    assert.ok(readFileSync(join(tlsDir, 'privkey.pem')).equals(readFileSync(join(TLS_FIXTURES, FIRST.key))), 'the old key stays');
    assert.deepEqual(callsOf(systemctl.calls), ['reload problem-service'], 'only the first run asked for a reload');
  });

  describe('with the service running on the files the drop-in names', () => {
    /** The service started on the pair the hook installed in `tlsDir`, under the drop-in's file names. */
    async function serviceOn(tlsDir: string) {
      assert.ok(dropInEnv.TLS_CERT && dropInEnv.TLS_KEY, 'the drop-in names TLS_CERT and TLS_KEY');
      const program = runServerProgram({
        APP_ENV: 'prod', APP_DEBUG: '0',
        TLS_CERT: join(tlsDir, basename(dropInEnv.TLS_CERT)), TLS_KEY: join(tlsDir, basename(dropInEnv.TLS_KEY)),
      });
      const url = await program.listening;
      assert.equal((await handshake(url)).serial, FIRST.serial);
      return { program, url };
    }

    it('gets the renewed certificate to new handshakes through the reload it asks for', { timeout: 60_000 }, async () => {
      const tlsDir = newDir('tls', 0o750);
      const systemctl = fakeSystemctl();
      assert.equal((await runHook(tlsDir, lineage(FIRST), systemctl)).code, 0);
      const { program, url } = await serviceOn(tlsDir);
      const run = await runHook(tlsDir, lineage(RENEWED), systemctl, { MAINPID: String(program.child.pid) });
      assert.equal(run.code, 0, run.stderr);
      await eventually('the renewed serial', async () => (await handshake(url)).serial, (serial) => serial === RENEWED.serial);
      // The watcher would reload too, half a second after it sees the files change: the line
      // names SIGHUP, which the reload brought at once.
      const reloaded = /app\.INFO: TLS certificate reloaded \(serial 1001 -> 1002[^\n]* on SIGHUP\n/;
      await eventually('the reload line', () => readErrorLog(join(program.varDir, 'log')), (log) => reloaded.test(log));
      program.child.kill('SIGTERM');
      assert.deepEqual(await program.exited, [0, null]);
    });

    it('gets it there within seconds when the reload is lost, the service seeing the files change', { timeout: 60_000 }, async () => {
      const tlsDir = newDir('tls', 0o750);
      const systemctl = fakeSystemctl();
      assert.equal((await runHook(tlsDir, lineage(FIRST), systemctl)).code, 0);
      const { program, url } = await serviceOn(tlsDir);
      assert.equal((await runHook(tlsDir, lineage(RENEWED), systemctl)).code, 0);
      await eventually('the renewed serial', async () => (await handshake(url)).serial, (serial) => serial === RENEWED.serial);
      const reloaded = /app\.INFO: TLS certificate reloaded \(serial 1001 -> 1002[^\n]* on file change\n/;
      await eventually('the reload line', () => readErrorLog(join(program.varDir, 'log')), (log) => reloaded.test(log));
      program.child.kill('SIGTERM');
      assert.deepEqual(await program.exited, [0, null]);
    });
  });
});

/**
 * The shipped deploy files. The systemd unit, deploy/systemd/problem-service.service, read as
 * text: it must start the built server and stop it the way the service expects; systemd itself
 * cannot run here (no init system in a test process), so this checks the settings, and runs the
 * node commands of its install steps against `tsc`'s output. The nginx site file is checked as
 * text here and run for real in test/e2e/nginx.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { STOP_GRACE_MS } from '../src/server.js';
import { readUnitFile } from './helpers/systemd-unit.js';

const UNIT_FILE = 'deploy/systemd/problem-service.service';

const unit = readUnitFile(UNIT_FILE);
const service = unit.get('Service') ?? new Map<string, readonly string[]>();

/** The one value of a [Service] key; fails when it is missing or repeated. */
function single(key: string): string {
  const values = service.get(key) ?? [];
  assert.equal(values.length, 1, `${UNIT_FILE}: [Service] ${key} wanted once, found ${values.length} times`);
  return values[0]!;
}

/** systemd time spans used here: `15`, `15s`, `1min 30s`. */
function seconds(span: string): number {
  let total = 0;
  for (const [, amount, unitName] of span.matchAll(/(\d+)\s*(min|s)?/g)) {
    total += Number(amount) * (unitName === 'min' ? 60 : 1);
  }
  return total;
}

describe('deploy/systemd/problem-service.service', () => {
  it('has the sections systemd needs to install it', () => {
    assert.deepEqual([...unit.keys()], ['Unit', 'Service', 'Install']);
    assert.deepEqual(unit.get('Install')?.get('WantedBy'), ['multi-user.target']);
  });

  it('runs the problem-service command with node --enable-source-maps from an absolute install directory', () => {
    assert.match(single('ExecStart'), /^\/\S*\/node --enable-source-maps bin\/problem-service\.mjs$/);
    assert.ok(posix.isAbsolute(single('WorkingDirectory')), 'WorkingDirectory must be absolute');
  });

  it('runs in prod with credentials from an EnvironmentFile', () => {
    assert.ok((service.get('Environment') ?? []).includes('APP_ENV=prod'), 'Environment=APP_ENV=prod');
    assert.ok(posix.isAbsolute(single('EnvironmentFile').replace(/^-/, '')), 'EnvironmentFile must be an absolute path');
  });

  it('stops with SIGTERM and waits longer than the service\'s graceful stop before killing', () => {
    assert.equal(single('KillSignal'), 'SIGTERM');
    const timeout = seconds(single('TimeoutStopSec'));
    // The service waits STOP_GRACE_MS for requests in flight, then flushes its log.
    assert.ok(timeout >= STOP_GRACE_MS / 1000 + 2, `TimeoutStopSec=${timeout} s leaves no room after the ${STOP_GRACE_MS / 1000} s grace`);
    assert.ok(timeout <= 30, `TimeoutStopSec=${timeout} s: a stuck stop should not hold a restart that long`);
  });

  it('restarts after a crash but not after a clean stop', () => {
    assert.equal(single('Restart'), 'on-failure');
  });

  it('runs as a dedicated user, not root', () => {
    assert.notEqual(single('User'), 'root');
    assert.match(single('User'), /^[a-z][a-z0-9-]*$/);
  });

  it('is hardened, with write access only to var/ and public/posters/', () => {
    assert.equal(single('NoNewPrivileges'), 'yes');
    assert.equal(single('ProtectSystem'), 'strict');
    assert.equal(single('PrivateTmp'), 'yes');
    const home = single('WorkingDirectory');
    const writable = single('ReadWritePaths').split(/\s+/).map((p) => p.replace(/^-/, ''));
    assert.deepEqual(writable.sort(), [posix.join(home, 'public/posters'), posix.join(home, 'var')]);
  });

  it('does not forbid writable executable memory, which Node\'s JIT needs', () => {
    assert.notEqual(service.get('MemoryDenyWriteExecute')?.at(-1), 'yes');
  });
});

const ROOT = resolve('.');
const UNIT_TEXT = readFileSync(UNIT_FILE, 'utf8');

/** The node commands of the unit's install comments: `/usr/bin/node dist/cli/jwt.js <args>`. */
function installCommands(): string[][] {
  const commands: string[][] = [];
  for (const line of UNIT_TEXT.split('\n')) {
    const command = /^#\s+\/usr\/bin\/node (dist\/cli\/jwt\.js .*)$/.exec(line)?.[1];
    if (command !== undefined) commands.push(command.split(' '));
  }
  return commands;
}

describe('the systemd unit with tsc\'s output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** An install directory as the unit's comments describe: dist/ built, node_modules beside it. */
  const install = join(dir, 'opt');
  const execArgs = single('ExecStart').split(' ');
  const nodeOptions = execArgs.slice(1, -1);

  before(() => {
    mkdirSync(install);
    symlinkSync(join(ROOT, 'node_modules'), join(install, 'node_modules'));
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(install, 'dist')], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });

  it('names src/ files and lines in a stack trace, with the unit\'s node options', () => {
    // A ConfigError thrown inside dist/config/config.js, its stack printed as a log line would show it.
    const script = `import('./dist/config/config.js').then((m) => { try { m.parseConfig({ PORT: 'x' }, '/'); } catch (e) { console.log(e.stack); } })`;
    const run = spawnSync(process.execPath, [...nodeOptions, '-e', script], { cwd: install, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^ConfigError: Invalid setting PORT: "x" is not a whole number\n/);
    assert.ok(run.stdout.includes(`parseConfig (${ROOT}/src/config/config.ts:`), run.stdout);
    assert.ok(!run.stdout.includes('dist/config/config.js'), run.stdout);
  });

  it('has install steps that write the JWT key pair (0600 and 0644, in a 0700 directory) and issue a token', () => {
    assert.match(UNIT_TEXT, /^#\s+install -d -m 0700 -o problem-service -g problem-service \/opt\/problem-service\/config\/jwt$/m);
    assert.match(UNIT_TEXT, /^#\s+echo "JWT_PASSPHRASE=\$\(openssl rand -base64 \d+\)" >> \/etc\/problem-service\/problem-service\.env$/m);
    const commands = installCommands();
    assert.deepEqual(commands.map((c) => c[1]), ['generate-keypair', 'token'], 'the install steps\' jwt commands');
    const env = { PATH: process.env.PATH, JWT_PASSPHRASE: 'install steps passphrase' };
    const jwt = (args: readonly string[]) => spawnSync(process.execPath, args, { cwd: install, env, encoding: 'utf8' });
    mkdirSync(join(install, 'config/jwt'), { recursive: true, mode: 0o700 });

    const generated = jwt(commands[0]!);
    assert.equal(generated.status, 0, generated.stderr);
    assert.equal(statSync(join(install, 'config/jwt/private.pem')).mode & 0o777, 0o600);
    assert.equal(statSync(join(install, 'config/jwt/public.pem')).mode & 0o777, 0o644);

    const issued = jwt(commands[1]!.map((arg) => (arg === '<username>' ? 'ana' : arg)).filter((arg) => !arg.startsWith('[') && !arg.endsWith(']')));
    assert.equal(issued.status, 0, issued.stderr);
    const token = issued.stdout.trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const verified = jwt(['dist/cli/jwt.js', 'verify', token]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.equal(JSON.parse(verified.stdout).username, 'ana');
  });
});

const SITE_FILE = 'deploy/nginx/problem-service.conf';
const SITE_TEXT = readFileSync(SITE_FILE, 'utf8');
const PLACEHOLDERS = ['UPSTREAMS', 'HTTP_LISTEN', 'HTTPS_LISTEN', 'SERVER_NAME', 'TLS_CERTIFICATE', 'TLS_CERTIFICATE_KEY'];

/** The site's `server { … }` blocks, comments dropped (the file is ours: braces only nest). */
function serverBlocks(): string[] {
  const text = SITE_TEXT.split('\n').filter((line) => !line.trimStart().startsWith('#')).join('\n');
  const blocks: string[] = [];
  for (let at = text.indexOf('server {'); at !== -1; at = text.indexOf('server {', at + 1)) {
    let depth = 0;
    let end = at + 'server '.length;
    do {
      if (text[end] === '{') depth++;
      if (text[end] === '}') depth--;
      end++;
    } while (depth > 0 && end < text.length);
    blocks.push(text.slice(at, end));
  }
  return blocks;
}

describe('deploy/nginx/problem-service.conf', () => {
  it('names each placeholder in directives only, never in a comment', () => {
    const found = new Set<string>();
    for (const [index, line] of SITE_TEXT.split('\n').entries()) {
      for (const [, name] of line.matchAll(/__([A-Z_]+?)__/g)) {
        assert.ok(!line.trimStart().startsWith('#'), `${SITE_FILE}:${index + 1}: placeholder ${name} in a comment`);
        found.add(name!);
      }
    }
    assert.deepEqual([...found].sort(), [...PLACEHOLDERS].sort());
  });

  it('redirects plain HTTP to https with the same target and proxies nothing there', () => {
    const [plain, ...rest] = serverBlocks().filter((block) => block.includes('listen __HTTP_LISTEN__;'));
    assert.ok(plain !== undefined && rest.length === 0, 'one server block on the plain-HTTP listener');
    assert.ok(!plain.includes('listen __HTTPS_LISTEN__'), 'the plain listener shares a block with the TLS one');
    assert.match(plain, /^\s*return 308 https:\/\/\$host\$request_uri;$/m);
    assert.ok(!plain.includes('proxy_pass'), 'plain HTTP is proxied');
    const tls = serverBlocks().find((block) => block.includes('listen __HTTPS_LISTEN__ ssl;'));
    assert.match(tls ?? '', /proxy_pass http:\/\/problem_service;/);
  });

  it('says NFS does not keep O_APPEND writes whole and names REDIS_URL for several machines, as docs/deployment.md does', () => {
    const page = readFileSync('docs/deployment.md', 'utf8');
    assert.match(page, /a\s+local\s+disk\s+provides\s+and\s+NFS\s+does\s+not/);
    assert.match(page, /use\s+Redis\s+across\s+machines/);
    assert.match(SITE_TEXT, /NFS does\s+#?\s*not keep them whole/);
    assert.match(SITE_TEXT, /REDIS_URL, the same Redis and database on every instance/);
    assert.doesNotMatch(SITE_TEXT, /NFS or similar/);
  });
});

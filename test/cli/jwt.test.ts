import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runJwtCli } from '../../src/cli/jwt.js';
import { MAX_TOKEN_LENGTH, MAX_USERNAME_BYTES } from '../../src/jwt/index.js';

const root = mkdtempSync(join(tmpdir(), 'jwt-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** Runs the CLI in a fresh project directory with the given .env content. */
function project(envFile = 'JWT_PASSPHRASE=cli-test-passphrase\n') {
  const dir = join(root, `p${++n}`);
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, '.env'), envFile);
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runJwtCli(argv, (l) => out.push(l), (l) => err.push(l), { dir, env: {} });
    return { code, out, err };
  };
  return { dir, run };
}

describe('jwt generate-keypair', () => {
  it('writes the pair under config/jwt/ and refuses to overwrite without --overwrite', async () => {
    const { dir, run } = project();
    const first = await run('generate-keypair');
    assert.equal(first.code, 0, first.err.join('\n'));
    assert.deepEqual(first.out, [`wrote ${join(dir, 'config/jwt/private.pem')} and ${join(dir, 'config/jwt/public.pem')}`]);
    const before = readFileSync(join(dir, 'config/jwt/private.pem'), 'utf8');
    const second = await run('generate-keypair');
    assert.equal(second.code, 1);
    assert.match(second.err[0]!, /exists; use --overwrite to replace the key pair$/);
    assert.equal(readFileSync(join(dir, 'config/jwt/private.pem'), 'utf8'), before, 'the key was replaced');
    const third = await run('generate-keypair', '--overwrite');
    assert.equal(third.code, 0);
    assert.notEqual(readFileSync(join(dir, 'config/jwt/private.pem'), 'utf8'), before);
  });

  it('writes the pair outside dev with POSTER_API=1, whose settings check needs the public key it writes', async () => {
    const { dir, run } = project('APP_ENV=prod\nPOSTER_API=1\nJWT_PASSPHRASE=cli-test-passphrase\n');
    const result = await run('generate-keypair');
    assert.deepEqual(result.err, []);
    assert.equal(result.code, 0);
    assert.ok(existsSync(join(dir, 'config/jwt/public.pem')));
    const issued = await run('token', 'ana');
    assert.equal(issued.code, 0, issued.err.join('\n'));
  });

  it('replaces a broken public key with --overwrite though the settings check would refuse it', async () => {
    const { dir, run } = project('APP_ENV=prod\nPOSTER_API=1\nJWT_PASSPHRASE=cli-test-passphrase\n');
    mkdirSync(join(dir, 'config/jwt'), { recursive: true });
    writeFileSync(join(dir, 'config/jwt/public.pem'), 'not a key\n');
    const refused = await run('verify', 'a.b.c');
    assert.deepEqual(refused.err, [`jwt: Invalid setting JWT_PUBLIC_KEY: ${join(dir, 'config/jwt/public.pem')} is not a public key in PEM`]);
    const result = await run('generate-keypair', '--overwrite');
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.match(readFileSync(join(dir, 'config/jwt/public.pem'), 'utf8'), /^-----BEGIN PUBLIC KEY-----\n/);
  });

  it('generates a passphrase into .env.local when none is set', async () => {
    const { dir, run } = project('');
    const result = await run('generate-keypair');
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.match(readFileSync(join(dir, '.env.local'), 'utf8'), /\nJWT_PASSPHRASE=[A-Za-z0-9_-]{32}\n$/);
    assert.ok(existsSync(join(dir, 'config/jwt/private.pem')));
  });
});

describe('jwt token and jwt verify', () => {
  it('issues a token that verify accepts with its claims', async () => {
    const { run } = project();
    await run('generate-keypair');
    const issued = await run('token', 'ana', '--ttl', '120');
    assert.equal(issued.code, 0, issued.err.join('\n'));
    const token = issued.out[0]!;
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const verified = await run('verify', token);
    assert.equal(verified.code, 0);
    const claims = JSON.parse(verified.out[0]!);
    assert.equal(claims.sub, 'ana');
    assert.equal(claims.username, 'ana');
    assert.equal(claims.exp - claims.iat, 120);
  });

  it('uses JWT_TOKEN_TTL by default', async () => {
    const { run } = project('JWT_PASSPHRASE=cli-test-passphrase\nJWT_TOKEN_TTL=42\n');
    await run('generate-keypair');
    const claims = JSON.parse((await run('verify', (await run('token', 'bo')).out[0]!)).out[0]!);
    assert.equal(claims.exp - claims.iat, 42);
  });

  it('warns on stderr of a name in .env that is no setting, and issues the token all the same', async () => {
    const { run } = project('JWT_PASSPHRASE=cli-test-passphrase\nJWT_TOKEN_TL=42\n');
    await run('generate-keypair');
    const issued = await run('token', 'bo');
    assert.equal(issued.code, 0);
    assert.deepEqual(issued.err, ['warning: .env line 2: JWT_TOKEN_TL is not a setting, so it does nothing; did you mean JWT_TOKEN_TTL?']);
    const claims = JSON.parse((await run('verify', issued.out[0]!)).out[0]!);
    assert.equal(claims.exp - claims.iat, 3600, 'the default lifetime, as the warning says');
  });

  it('refuses to issue a token that outlives JWT_TOKEN_TTL, exit 2', async () => {
    const { run } = project('JWT_PASSPHRASE=cli-test-passphrase\nJWT_TOKEN_TTL=60\n');
    await run('generate-keypair');
    const result = await run('token', 'ana', '--ttl', '61');
    assert.equal(result.code, 2);
    assert.deepEqual(result.out, []);
    assert.match(result.err[0]!, /^jwt: --ttl must be at most JWT_TOKEN_TTL \(60 seconds\)\n/);
  });

  it('verifies with JWT_TOKEN_TTL: a token longer-lived than the setting is refused', async () => {
    const { dir, run } = project();
    await run('generate-keypair');
    const token = (await run('token', 'ana', '--ttl', '120')).out[0]!;
    writeFileSync(join(dir, '.env.local'), 'JWT_TOKEN_TTL=60\n');
    const result = await run('verify', token);
    assert.equal(result.code, 1);
    assert.deepEqual(result.err, ['jwt: refused: the token\'s lifetime ("exp" - "iat") is longer than 60 seconds (JWT_TOKEN_TTL)']);
  });

  it('verifies on a host that holds only the public key, with no passphrase set', async () => {
    const { dir, run } = project();
    await run('generate-keypair');
    const token = (await run('token', 'ana', '--ttl', '120')).out[0]!;
    const verifier = project('');
    mkdirSync(join(verifier.dir, 'config/jwt'), { recursive: true });
    copyFileSync(join(dir, 'config/jwt/public.pem'), join(verifier.dir, 'config/jwt/public.pem'));
    const result = await verifier.run('verify', token);
    assert.deepEqual(result.err, []);
    assert.equal(result.code, 0);
    assert.equal(JSON.parse(result.out[0]!).username, 'ana');
    assert.ok(!existsSync(join(verifier.dir, '.env.local')), 'verify wrote a passphrase');
  });

  it('names JWT_PUBLIC_KEY when verify finds no public key, exit 1', async () => {
    const { dir, run } = project('');
    const result = await run('verify', 'a.b.c');
    assert.equal(result.code, 1);
    assert.deepEqual(result.err, [`jwt: JWT_PUBLIC_KEY ${join(dir, 'config/jwt/public.pem')}: no such file`]);
  });

  it('names JWT_PASSPHRASE when token has none to decrypt the private key, exit 1', async () => {
    const { dir, run } = project();
    await run('generate-keypair');
    writeFileSync(join(dir, '.env'), '');
    const result = await run('token', 'ana');
    assert.equal(result.code, 1);
    assert.deepEqual(result.err, ['jwt: JWT_PASSPHRASE is not set; it is needed to decrypt JWT_SECRET_KEY']);
    assert.deepEqual(result.out, []);
  });

  it('says why a token is refused, exit 1', async () => {
    const { run } = project();
    await run('generate-keypair');
    const result = await run('verify', 'garbage');
    assert.equal(result.code, 1);
    assert.deepEqual(result.err, ['jwt: refused: the token is malformed']);
  });

  it('stops with a clear line on a wrong passphrase, never showing it', async () => {
    const { dir, run } = project();
    await run('generate-keypair');
    writeFileSync(join(dir, '.env.local'), 'JWT_PASSPHRASE=not-the-right-one\n');
    const result = await run('token', 'ana');
    assert.equal(result.code, 1);
    assert.match(result.err[0]!, /^jwt: JWT_SECRET_KEY .*private\.pem cannot be decrypted with JWT_PASSPHRASE/);
    assert.ok(!result.err[0]!.includes('not-the-right-one'));
  });
});

describe('jwt token: the username bound', () => {
  it('refuses a 100 KB username up front: one line, exit 2, no token, no key read', async () => {
    const { run } = project('');
    const result = await run('token', 'u'.repeat(100 * 1024));
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, ['jwt: the username is 102400 bytes long; at most 480 bytes (UTF-8) keep a token within the 8192 characters the service accepts']);
    assert.deepEqual(result.out, []);
  });

  it('refuses a username of MAX_USERNAME_BYTES + 1 bytes, counted in UTF-8', async () => {
    const { run } = project();
    await run('generate-keypair');
    const result = await run('token', `${'é'.repeat(240)}x`);
    assert.equal(result.code, 2);
    assert.match(result.err[0]!, /^jwt: the username is 481 bytes long; at most 480 bytes/);
  });

  it('issues, for the widest username of MAX_USERNAME_BYTES (each byte escaped in JSON), a token that verify accepts', async () => {
    assert.equal(MAX_USERNAME_BYTES, 480);
    const { run } = project();
    await run('generate-keypair');
    const username = '\u0001'.repeat(MAX_USERNAME_BYTES);
    const issued = await run('token', username);
    assert.equal(issued.code, 0, issued.err.join('\n'));
    assert.ok(issued.out[0]!.length <= MAX_TOKEN_LENGTH, `${issued.out[0]!.length} characters`);
    const verified = await run('verify', issued.out[0]!);
    assert.equal(verified.code, 0, verified.err.join('\n'));
    assert.equal(JSON.parse(verified.out[0]!).username, username);
    assert.equal(JSON.parse(verified.out[0]!).sub, username);
  });
});

describe('jwt usage', () => {
  for (const argv of [[], ['frobnicate'], ['token'], ['verify'], ['token', 'a', 'b'], ['--bogus'], ['token', 'a', '--ttl', '0']]) {
    it(`exits 2 with the usage for ${JSON.stringify(argv)}`, async () => {
      const result = await project().run(...argv);
      assert.equal(result.code, 2, JSON.stringify(argv));
      assert.match(result.err.join('\n'), /\nusage:\n/, JSON.stringify(argv));
    });
  }

  it('prints the usage with --help, exit 0', async () => {
    const result = await project().run('--help');
    assert.equal(result.code, 0);
    assert.match(result.out[0]!, /^usage:\n {2}jwt generate-keypair/);
  });
});

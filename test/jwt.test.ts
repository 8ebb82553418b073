import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import {
  InvalidToken,
  JwtKeyError,
  Unauthorized,
  VerifiedTokenCache,
  bearerToken,
  createBearerGuard,
  issueToken,
  loadKeyPair,
  verifyToken,
  writeKeyPair,
} from '../src/jwt.js';

const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const PASS = 'correct horse battery staple';
const paths = { secretKeyPath: join(dir, 'private.pem'), publicKeyPath: join(dir, 'public.pem') };
writeKeyPair(paths, PASS, false);
const { privateKey, publicKey } = loadKeyPair(paths, PASS);
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const SKEW = 10;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowS = NOW / 1000;

async function refusal(token: string, now = NOW): Promise<string> {
  try {
    await verifyToken(token, publicKey, SKEW, now);
  } catch (err) {
    assert.ok(err instanceof InvalidToken, `not an InvalidToken: ${String(err)}`);
    return err.message;
  }
  assert.fail('the token was accepted');
}

function es512(claims: Record<string, unknown>, key: KeyObject = privateKey, header: Record<string, unknown> = { alg: 'ES512' }) {
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);
}

describe('key pair', () => {
  it('writes an encrypted PKCS#8 private key readable only by its owner', () => {
    const pem = readFileSync(paths.secretKeyPath, 'utf8');
    assert.match(pem, /^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
    assert.equal(statSync(paths.secretKeyPath).mode & 0o777, 0o600);
    assert.equal(publicKey.asymmetricKeyDetails?.namedCurve, 'secp521r1');
  });

  it('refuses to overwrite an existing pair without the flag', () => {
    assert.throws(() => writeKeyPair(paths, PASS, false), /exists; use --overwrite to replace the key pair/);
  });

  it('refuses a wrong passphrase, naming the file and never the passphrase', () => {
    assert.throws(() => loadKeyPair(paths, 'wrong passphrase here'), (err: unknown) => {
      assert.ok(err instanceof JwtKeyError);
      assert.ok(err.message.includes(paths.secretKeyPath));
      assert.ok(!err.message.includes('wrong passphrase here'));
      return true;
    });
  });

  it('refuses an unreadable file', () => {
    assert.throws(() => loadKeyPair({ ...paths, publicKeyPath: join(dir, 'missing.pem') }, PASS), /^JwtKeyError: JWT_PUBLIC_KEY .*missing\.pem cannot be read \(ENOENT\)$/);
  });

  it('refuses halves of two different pairs', () => {
    const other = { secretKeyPath: join(dir, 'other.pem'), publicKeyPath: join(dir, 'other.pub.pem') };
    writeKeyPair(other, PASS, false);
    assert.throws(() => loadKeyPair({ ...paths, publicKeyPath: other.publicKeyPath }, PASS), /does not belong to JWT_SECRET_KEY/);
  });

  it('refuses a key on another curve', () => {
    const p256 = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: PASS },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const p = { secretKeyPath: join(dir, 'p256.pem'), publicKeyPath: join(dir, 'p256.pub.pem') };
    writeFileSync(p.secretKeyPath, p256.privateKey);
    writeFileSync(p.publicKeyPath, p256.publicKey);
    assert.throws(() => loadKeyPair(p, PASS), /is not a P-521 key, which ES512 needs/);
  });
});

describe('verifyToken', () => {
  it('accepts our token and gives its claims', async () => {
    const token = await issueToken(privateKey, 'ana', 3600, NOW);
    const claims = await verifyToken(token, publicKey, SKEW, NOW + 1000);
    assert.deepEqual(claims, { username: 'ana', iat: nowS, exp: nowS + 3600 });
  });

  it('refuses alg: none', async () => {
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ username: 'x', exp: nowS + 60 })}.`;
    assert.equal(await refusal(token), 'only ES512 tokens are accepted');
  });

  it('refuses HS512 signed with the public key as the secret', async () => {
    const secret = publicKey.export({ type: 'spki', format: 'pem' });
    const head = `${b64({ alg: 'HS512', typ: 'JWT' })}.${b64({ username: 'x', exp: nowS + 60 })}`;
    const mac = createHmac('sha512', secret).update(head).digest('base64url');
    assert.equal(await refusal(`${head}.${mac}`), 'only ES512 tokens are accepted');
  });

  it('refuses a token signed by another P-521 key', async () => {
    const { privateKey: stranger } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    assert.equal(await refusal(await es512({ username: 'x', exp: nowS + 60 }, stranger)), 'the signature does not verify');
  });

  it('refuses ES256', async () => {
    const { privateKey: p256 } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    assert.equal(await refusal(await es512({ username: 'x', exp: nowS + 60 }, p256, { alg: 'ES256' })), 'only ES512 tokens are accepted');
  });

  it('refuses a tampered payload', async () => {
    const [h, , s] = (await issueToken(privateKey, 'ana', 3600, NOW)).split('.');
    assert.equal(await refusal(`${h}.${b64({ username: 'admin', iat: nowS, exp: nowS + 3600 })}.${s}`), 'the signature does not verify');
  });

  it('refuses a DER-encoded signature', async () => {
    const head = `${b64({ alg: 'ES512', typ: 'JWT' })}.${b64({ username: 'x', exp: nowS + 60 })}`;
    const der = sign('sha512', Buffer.from(head), privateKey).toString('base64url');
    assert.equal(await refusal(`${head}.${der}`), 'the signature does not verify');
  });

  it('refuses a token without exp', async () => {
    assert.equal(await refusal(await es512({ username: 'x', iat: nowS })), 'the token has no "exp" claim');
  });

  it('refuses a token expired beyond the skew and accepts one within it', async () => {
    const token = await es512({ username: 'x', exp: nowS - 11 });
    assert.equal(await refusal(token), 'the token has expired');
    assert.ok(await verifyToken(await es512({ username: 'x', exp: nowS - 9 }), publicKey, SKEW, NOW));
  });

  it('refuses nbf in the future beyond the skew, accepts it within', async () => {
    assert.equal(await refusal(await es512({ username: 'x', nbf: nowS + 11, exp: nowS + 60 })), 'the token is not valid yet ("nbf")');
    assert.ok(await verifyToken(await es512({ username: 'x', nbf: nowS + 9, exp: nowS + 60 }), publicKey, SKEW, NOW));
  });

  it('refuses iat in the future beyond the skew', async () => {
    assert.equal(await refusal(await es512({ username: 'x', iat: nowS + 11, exp: nowS + 60 })), 'the token was issued in the future ("iat")');
  });

  it('refuses garbage', async () => {
    assert.equal(await refusal('not.a.token'), 'the token is malformed');
    assert.equal(await refusal('garbage'), 'the token is malformed');
  });

  it('refuses an oversize token before any cryptography', async () => {
    assert.equal(await refusal('a'.repeat(8193)), 'the token is longer than 8192 characters');
  });
});

describe('bearerToken', () => {
  it('reads the token whatever the scheme case', () => assert.equal(bearerToken('bEaReR abc.def-_~+/='), 'abc.def-_~+/='));
  it('gives undefined without credentials', () => {
    assert.equal(bearerToken(undefined), undefined);
    assert.equal(bearerToken(''), undefined);
  });
  it('gives null for another scheme or a malformed value', () => {
    assert.equal(bearerToken('Basic dXNlcjpwYXNz'), null);
    assert.equal(bearerToken('Bearer a b'), null);
  });
});

describe('the bearer guard and its cache', () => {
  it('answers a missing token with a bare challenge', async () => {
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, realm: 'svc', clock: () => NOW });
    await assert.rejects(guard(undefined), (err: unknown) => {
      assert.ok(err instanceof Unauthorized);
      assert.equal(err.headers['www-authenticate'], 'Bearer realm="svc"');
      return true;
    });
  });

  it('answers a bad token with error="invalid_token" and a description', async () => {
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, realm: 'svc', clock: () => NOW });
    await assert.rejects(guard('Bearer garbage'), (err: unknown) => {
      assert.ok(err instanceof Unauthorized);
      assert.equal(err.headers['www-authenticate'], 'Bearer realm="svc", error="invalid_token", error_description="The token is not valid: the token is malformed."');
      return true;
    });
  });

  it('serves a reused token from the cache until exp + skew', async () => {
    let now = NOW;
    const cache = new VerifiedTokenCache();
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, realm: 'svc', clock: () => now, cache });
    const token = await issueToken(privateKey, 'ana', 60, NOW);
    assert.equal((await guard(`Bearer ${token}`)).username, 'ana');
    assert.equal(cache.size, 1);
    assert.equal(cache.get(token, now)?.username, 'ana');
    now = NOW + 69_999;
    assert.equal((await guard(`Bearer ${token}`)).username, 'ana');
    now = NOW + 70_000;
    assert.equal(cache.get(token, now), undefined, 'kept past exp + skew');
    await assert.rejects(guard(`Bearer ${token}`), Unauthorized);
  });

  it('keeps at most its bound of tokens, dropping the oldest', async () => {
    const cache = new VerifiedTokenCache(2);
    for (const name of ['a', 'b', 'c']) cache.set(name, { exp: nowS + 60 }, SKEW);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a', NOW), undefined);
    assert.ok(cache.get('c', NOW));
  });

  it('never caches a refused token', async () => {
    const cache = new VerifiedTokenCache();
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, realm: 'svc', clock: () => NOW, cache });
    await assert.rejects(guard('Bearer x.y.z'), Unauthorized);
    assert.equal(cache.size, 0);
  });
});


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
  MAX_TOKEN_LENGTH,
  MAX_USERNAME_BYTES,
  Unauthorized,
  VerifiedTokenCache,
  bearerToken,
  createBearerGuard,
  issueToken,
  loadKeyPair,
  loadPublicKey,
  verifyToken,
  writeKeyPair,
} from '../../src/jwt/index.js';
import { MAX_JWT_KEY_BYTES } from '../../src/config/index.js';
import { subjectText, tokenSubject } from '../../src/poster/api.js';

const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const PASS = 'correct horse battery staple';
const paths = { secretKeyPath: join(dir, 'private.pem'), publicKeyPath: join(dir, 'public.pem') };
writeKeyPair(paths, PASS, false);
const { privateKey, publicKey } = loadKeyPair(paths, PASS);
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const SKEW = 10;
const TTL = 3600;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowS = NOW / 1000;

async function refusal(token: string, now = NOW): Promise<string> {
  try {
    await verifyToken(token, publicKey, SKEW, now, TTL);
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

  it('refuses a missing file, naming its setting and path', () => {
    assert.throws(() => loadKeyPair({ ...paths, publicKeyPath: join(dir, 'missing.pem') }, PASS), {
      name: 'JwtKeyError',
      message: `JWT_PUBLIC_KEY ${join(dir, 'missing.pem')}: no such file`,
    });
    assert.throws(() => loadKeyPair({ ...paths, secretKeyPath: join(dir, 'missing.pem') }, PASS), {
      name: 'JwtKeyError',
      message: `JWT_SECRET_KEY ${join(dir, 'missing.pem')}: no such file`,
    });
  });

  it('reads a private key file of MAX_JWT_KEY_BYTES and refuses one of a byte more, before decrypting', () => {
    const pem = readFileSync(paths.secretKeyPath, 'utf8');
    const exact = join(dir, 'exact-private.pem');
    writeFileSync(exact, pem.padEnd(MAX_JWT_KEY_BYTES, '\n'));
    assert.ok(loadKeyPair({ ...paths, secretKeyPath: exact }, PASS).privateKey);
    const over = join(dir, 'over-private.pem');
    writeFileSync(over, pem.padEnd(MAX_JWT_KEY_BYTES + 1, '\n'));
    assert.throws(() => loadKeyPair({ ...paths, secretKeyPath: over }, PASS), {
      name: 'JwtKeyError',
      message: `JWT_SECRET_KEY ${over}: larger than ${MAX_JWT_KEY_BYTES} bytes`,
    });
  });

  it('loads the public key alone, from a file that holds nothing else', () => {
    assert.deepEqual(loadPublicKey(paths.publicKeyPath).export({ type: 'spki', format: 'der' }), publicKey.export({ type: 'spki', format: 'der' }));
    assert.throws(() => loadPublicKey(paths.secretKeyPath), {
      name: 'JwtKeyError',
      message: `JWT_PUBLIC_KEY ${paths.secretKeyPath} holds a private key; it should hold the public key alone`,
    });
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

describe('issueToken: the username bound', () => {
  // The widest token: every byte of the username escaped as \u00XX, a ten-digit iat (until
  // 2286) and the longest --ttl the CLI takes.
  it('keeps the widest token of a MAX_USERNAME_BYTES (480) username, written twice (sub and username), within MAX_TOKEN_LENGTH, and verifyToken accepts it', async () => {
    assert.equal(MAX_USERNAME_BYTES, 480);
    const now = 9_999_999_999_000;
    const username = '\u0001'.repeat(MAX_USERNAME_BYTES);
    const token = await issueToken(privateKey, username, 999_999_999, now);
    assert.ok(token.length <= MAX_TOKEN_LENGTH, `${token.length} characters`);
    const claims = await verifyToken(token, publicKey, SKEW, now, 999_999_999);
    assert.equal(claims.username, username);
    assert.equal(claims.sub, username);
  });

  it('refuses a username of MAX_USERNAME_BYTES + 1 UTF-8 bytes with a RangeError', async () => {
    await assert.rejects(issueToken(privateKey, `${'é'.repeat(240)}x`, 60, NOW), {
      name: 'RangeError',
      message: 'the username is 481 bytes long; at most 480 bytes (UTF-8) keep a token within the 8192 characters the service accepts',
    });
  });
});

describe('verifyToken', () => {
  it('accepts our token and gives its claims: sub and username, both the username', async () => {
    const token = await issueToken(privateKey, 'ana', 3600, NOW);
    const claims = await verifyToken(token, publicKey, SKEW, NOW + 1000, TTL);
    assert.deepEqual(claims, { sub: 'ana', username: 'ana', iat: nowS, exp: nowS + 3600 });
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
    const token = await es512({ username: 'x', iat: nowS - 60, exp: nowS - 11 });
    assert.equal(await refusal(token), 'the token has expired');
    assert.ok(await verifyToken(await es512({ username: 'x', iat: nowS - 60, exp: nowS - 9 }), publicKey, SKEW, NOW, TTL));
  });

  it('refuses nbf in the future beyond the skew, accepts it within', async () => {
    assert.equal(await refusal(await es512({ username: 'x', iat: nowS, nbf: nowS + 11, exp: nowS + 60 })), 'the token is not valid yet ("nbf")');
    assert.ok(await verifyToken(await es512({ username: 'x', iat: nowS, nbf: nowS + 9, exp: nowS + 60 }), publicKey, SKEW, NOW, TTL));
  });

  it('refuses iat in the future beyond the skew', async () => {
    assert.equal(await refusal(await es512({ username: 'x', iat: nowS + 11, exp: nowS + 60 })), 'the token was issued in the future ("iat")');
  });

  it('accepts iat in the future within the skew (JWT_CLOCK_SKEW), up to the skew itself', async () => {
    for (const ahead of [1, SKEW - 1, SKEW]) {
      const claims = await verifyToken(await es512({ username: 'x', iat: nowS + ahead, exp: nowS + 60 }), publicKey, SKEW, NOW, TTL);
      assert.equal(claims.iat, nowS + ahead, `iat ${ahead} s ahead of the clock`);
    }
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => NOW });
    const token = await es512({ username: 'ahead', iat: nowS + SKEW, exp: nowS + 60 });
    assert.equal((await guard(`Bearer ${token}`)).username, 'ahead', 'the bearer guard lets it through');
  });

  it('refuses a token without iat', async () => {
    assert.equal(await refusal(await es512({ username: 'x', exp: nowS + 60 })), 'the token has no "iat" claim');
  });

  it('refuses a token whose exp - iat is longer than JWT_TOKEN_TTL', async () => {
    const hundredYears = 100 * 365 * 86_400;
    assert.equal(
      await refusal(await es512({ username: 'x', iat: nowS, exp: nowS + hundredYears })),
      `the token's lifetime ("exp" - "iat") is longer than ${TTL} seconds (JWT_TOKEN_TTL)`,
    );
    assert.ok(await verifyToken(await es512({ username: 'x', iat: nowS, exp: nowS + TTL }), publicKey, SKEW, NOW, TTL), 'exactly the TTL is fine');
  });

  it('refuses a token issued longer ago than JWT_TOKEN_TTL plus the skew', async () => {
    const old = await es512({ username: 'x', iat: nowS - TTL - SKEW - 1, exp: nowS + 60 });
    assert.equal(await refusal(old), `the token was issued more than ${TTL} seconds ago (JWT_TOKEN_TTL)`);
    const within = await es512({ username: 'x', iat: nowS - TTL - SKEW + 1, exp: nowS - SKEW + 1 });
    assert.ok(await verifyToken(within, publicKey, SKEW, NOW, TTL), 'a second younger is fine');
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
  it('reads the token whatever the scheme case', () => assert.deepEqual(bearerToken('bEaReR abc.def-_~+/='), { ok: true, value: 'abc.def-_~+/=' }));
  it('gives undefined without credentials', () => {
    assert.deepEqual(bearerToken(undefined), { ok: true, value: undefined });
    assert.deepEqual(bearerToken(''), { ok: true, value: undefined });
  });
  it('gives null for another scheme or a malformed value', () => {
    assert.deepEqual(bearerToken('Basic dXNlcjpwYXNz'), { ok: false, problem: 'malformed' });
    assert.deepEqual(bearerToken('Bearer a b'), { ok: false, problem: 'malformed' });
  });
});

describe('the bearer guard and its cache', () => {
  it('answers a missing token with a bare challenge', async () => {
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => NOW });
    await assert.rejects(guard(undefined), (err: unknown) => {
      assert.ok(err instanceof Unauthorized);
      assert.equal(err.headers['www-authenticate'], 'Bearer realm="svc"');
      return true;
    });
  });

  it('answers a bad token with error="invalid_token" and a description', async () => {
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => NOW });
    await assert.rejects(guard('Bearer garbage'), (err: unknown) => {
      assert.ok(err instanceof Unauthorized);
      assert.equal(err.headers['www-authenticate'], 'Bearer realm="svc", error="invalid_token", error_description="The token is not valid: the token is malformed."');
      return true;
    });
  });

  it('serves a reused token from the cache until exp + skew', async () => {
    let now = NOW;
    const cache = new VerifiedTokenCache();
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => now, cache });
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
    for (const name of ['a', 'b', 'c']) cache.set(name, { iat: nowS, exp: nowS + 60 }, { skewSeconds: SKEW, ttlSeconds: TTL });
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a', NOW), undefined);
    assert.ok(cache.get('c', NOW));
  });

  it('drops a cached token once it is older than JWT_TOKEN_TTL plus the skew, whatever its exp', () => {
    const cache = new VerifiedTokenCache();
    const rules = { skewSeconds: SKEW, ttlSeconds: 60 };
    // Verified while JWT_TOKEN_TTL allowed it (a restart with a shorter TTL must not keep it alive).
    cache.set('long-lived', { username: 'ana', iat: nowS, exp: nowS + 100 * 365 * 86_400 }, rules);
    assert.equal(cache.get('long-lived', NOW + 69_999)?.username, 'ana');
    assert.equal(cache.get('long-lived', NOW + 70_000), undefined, 'kept past iat + ttl + skew');
  });

  it('refuses through the guard a token the cache no longer holds once it ages out', async () => {
    let now = NOW;
    const cache = new VerifiedTokenCache();
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: 60, realm: 'svc', clock: () => now, cache });
    const token = await es512({ username: 'ana', iat: nowS, exp: nowS + 60 });
    assert.equal((await guard(`Bearer ${token}`)).username, 'ana');
    now = NOW + 70_001;
    await assert.rejects(guard(`Bearer ${token}`), (err: unknown) => {
      assert.ok(err instanceof Unauthorized);
      assert.equal(err.headers['www-authenticate'], 'Bearer realm="svc", error="invalid_token", error_description="The token is not valid: the token has expired."');
      return true;
    });
    assert.equal(cache.get(token, now), undefined);
  });

  it('answers a token with a 100-year exp with 401 invalid_token naming JWT_TOKEN_TTL', async () => {
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => NOW });
    const token = await es512({ username: 'ana', iat: nowS, exp: nowS + 100 * 365 * 86_400 });
    await assert.rejects(guard(`Bearer ${token}`), (err: unknown) => {
      assert.ok(err instanceof Unauthorized);
      assert.equal(err.status, 401);
      assert.equal(
        err.headers['www-authenticate'],
        `Bearer realm="svc", error="invalid_token", error_description="The token is not valid: the token's lifetime (exp - iat) is longer than ${TTL} seconds (JWT_TOKEN_TTL)."`,
      );
      return true;
    });
  });

  it('never caches a refused token', async () => {
    const cache = new VerifiedTokenCache();
    const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => NOW, cache });
    await assert.rejects(guard('Bearer x.y.z'), Unauthorized);
    assert.equal(cache.size, 0);
  });
});

describe('the subject of a token, for the rate limit and the access log', () => {
  const guard = createBearerGuard({ publicKey, skewSeconds: SKEW, ttlSeconds: TTL, realm: 'svc', clock: () => NOW });

  it('is sub for a token issued now, with the same text as username', async () => {
    const claims = await guard(`Bearer ${await issueToken(privateKey, 'ana', 600, NOW)}`);
    assert.equal(tokenSubject(claims), '"ana"');
    assert.equal(subjectText(claims), 'ana');
  });

  it('is username for a token issued before sub was written, which the guard still accepts: the same subject as a new token\'s', async () => {
    const claims = await guard(`Bearer ${await es512({ username: 'ana', iat: nowS, exp: nowS + 600 })}`);
    assert.equal(tokenSubject(claims), '"ana"');
    assert.equal(subjectText(claims), 'ana', 'the access log names the same subject either way');
  });
});

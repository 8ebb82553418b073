import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, verifyToken, writeKeyPair } from '../../src/jwt/index.js';
import { runProgram } from '../helpers/programs.js';

const dir = mkdtempSync(join(tmpdir(), 'jwt-e2e-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const PASS = 'interop passphrase';
const paths = { secretKeyPath: join(dir, 'private.pem'), publicKeyPath: join(dir, 'public.pem') };
writeKeyPair(paths, PASS, false);
const keys = loadKeyPair(paths, PASS);

/** Debian's interpreter, which sees Debian's python3-jwt and python3-cryptography. */
const PYTHON = '/usr/bin/python3';

async function python(script: string, ...args: string[]): Promise<string> {
  const result = await runProgram(PYTHON, ['-c', script, ...args]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.toString().trim();
}

describe('interop with openssl', () => {
  it('reads our private key with the passphrase and sees a P-521 key', async () => {
    const result = await runProgram('openssl', ['pkey', '-in', paths.secretKeyPath, '-passin', `pass:${PASS}`, '-noout', '-text']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout.toString(), /ASN1 OID: secp521r1/);
    assert.match(result.stdout.toString(), /NIST CURVE: P-521/);
  });

  it('cannot read it with a wrong passphrase', async () => {
    const result = await runProgram('openssl', ['pkey', '-in', paths.secretKeyPath, '-passin', 'pass:wrong', '-noout']);
    assert.notEqual(result.code, 0);
  });
});

describe('interop with PyJWT', () => {
  it('accepts a token PyJWT signed with our private key', async () => {
    const token = await python(
      [
        'import sys, time, jwt',
        'from cryptography.hazmat.primitives.serialization import load_pem_private_key',
        'key = load_pem_private_key(open(sys.argv[1], "rb").read(), password=sys.argv[2].encode())',
        'now = int(time.time())',
        'print(jwt.encode({"username": "py", "iat": now, "exp": now + 60}, key, algorithm="ES512"))',
      ].join('\n'),
      paths.secretKeyPath,
      PASS,
    );
    const claims = await verifyToken(token, keys.publicKey, 10, Date.now());
    assert.equal(claims.username, 'py');
  });

  it('verifies our token in PyJWT with our public key', async () => {
    const token = await issueToken(keys.privateKey, 'node', 60, Date.now());
    const claims = await python(
      [
        'import sys, json, jwt',
        'print(json.dumps(jwt.decode(sys.argv[1], open(sys.argv[2]).read(), algorithms=["ES512"])))',
      ].join('\n'),
      token,
      paths.publicKeyPath,
    );
    const parsed = JSON.parse(claims);
    assert.equal(parsed.username, 'node');
    assert.equal(parsed.exp - parsed.iat, 60);
  });

  it('is refused by PyJWT when the payload is tampered', async () => {
    const [h, , s] = (await issueToken(keys.privateKey, 'node', 60, Date.now())).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ username: 'admin', exp: 9999999999 })).toString('base64url')}.${s}`;
    const result = await runProgram(PYTHON, ['-c', 'import sys, jwt\njwt.decode(sys.argv[1], open(sys.argv[2]).read(), algorithms=["ES512"])', forged, paths.publicKeyPath]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /InvalidSignatureError/);
  });
});

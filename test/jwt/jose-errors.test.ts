/**
 * jose's errors are told apart by their stable `code`, not by `instanceof`: an error from another
 * copy of jose (a dependency's own, a second instance of the module) reads the same.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as jose from 'jose';
import { describeJoseError } from '../../src/jwt/index.js';

/** A second copy of jose's package, as a dependency that brings its own would have: the same codes, other classes. */
const dir = mkdtempSync(join(tmpdir(), 'jose-copy-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const josePackage = dirname(createRequire(import.meta.url).resolve('jose/package.json'));
cpSync(josePackage, join(dir, 'jose'), { recursive: true });
const otherCopy = (await import(pathToFileURL(join(dir, 'jose', 'dist', 'webapi', 'index.js')).href)) as typeof jose;
const { errors } = otherCopy;

describe('describeJoseError', () => {
  it('reads errors of another copy of jose, whose classes are not this one\'s', () => {
    assert.notEqual(errors.JWTExpired, jose.errors.JWTExpired);
    assert.ok(!(new errors.JWTExpired('expired', {}) instanceof jose.errors.JWTExpired));
  });

  const cases: [string, unknown, string][] = [
    ['an expired token', new errors.JWTExpired('"exp" claim timestamp check failed', {}, 'exp', 'check_failed'), 'the token has expired'],
    ['a missing claim', new errors.JWTClaimValidationFailed('missing', {}, 'iat', 'missing'), 'the token has no "iat" claim'],
    ['a token not valid yet', new errors.JWTClaimValidationFailed('nbf', {}, 'nbf', 'check_failed'), 'the token is not valid yet ("nbf")'],
    ['another failed claim', new errors.JWTClaimValidationFailed('iat', {}, 'iat', 'check_failed'), 'the "iat" claim is not valid'],
    ['an algorithm not allowed', new errors.JOSEAlgNotAllowed('alg'), 'only ES512 tokens are accepted'],
    ['a signature that does not verify', new errors.JWSSignatureVerificationFailed(), 'the signature does not verify'],
    ['a malformed JWS', new errors.JWSInvalid('Invalid Compact JWS'), 'the token is malformed'],
    ['a malformed JWT', new errors.JWTInvalid('JWT Claims Set must be a top-level JSON object'), 'the token is malformed'],
    ['another jose error', new errors.JOSENotSupported('no'), 'the token cannot be verified'],
    ['an error that is not jose\'s', new TypeError('boom'), 'the token cannot be verified'],
    ['a thrown string', 'ERR_JWT_EXPIRED', 'the token cannot be verified'],
  ];
  for (const [name, error, reason] of cases) {
    it(`says "${reason}" for ${name}`, () => assert.equal(describeJoseError(error), reason, name));
  }
});

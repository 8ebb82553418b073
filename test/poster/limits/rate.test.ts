import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../../src/jwt/index.js';
import { isAdmitted, PosterRateLimiter, RATE_RECORD_BYTES, TooManyRequests, rateWindow, retryAfterSeconds, subjectFileStem } from '../../../src/poster/limits/rate.js';
import { problemOf, send } from '../../helpers/http.js';
import { startTestService } from '../../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-rate-'));
after(() => rmSync(root, { recursive: true, force: true }));
/** 12:00:10 UTC: 50 s left in its window. */
const T0 = Date.UTC(2030, 0, 1, 12, 0, 10);
let n = 0;
const freshDir = () => join(root, `rate-${++n}`);

async function refusal(limiter: PosterRateLimiter, subject: string): Promise<TooManyRequests> {
  try {
    await limiter.take(subject);
  } catch (err) {
    assert.ok(err instanceof TooManyRequests, String(err));
    return err;
  }
  assert.fail('the request was admitted');
}

describe('rateWindow and retryAfterSeconds', () => {
  it('gives whole seconds until the window ends, at least one', () => {
    const { endsAt } = rateWindow(T0);
    assert.equal(endsAt, Date.UTC(2030, 0, 1, 12, 1, 0));
    assert.equal(retryAfterSeconds(T0, endsAt), 50);
    assert.equal(retryAfterSeconds(endsAt - 1, endsAt), 1);
    assert.equal(retryAfterSeconds(T0 + 49_001, endsAt), 1);
  });
});

describe('isAdmitted', () => {
  /** `count` distinct records as take() writes them: 16 hex digits and a newline. */
  const records = (count: number) => Array.from({ length: count }, (_, i) => `${(i + 1).toString(16).padStart(16, '0')}\n`);

  it('admits the first `limit` records of the file and refuses record limit + 1, which a process that raced past the first check appended', () => {
    const limit = 3;
    const written = records(limit + 2);
    assert.equal(written[0]!.length, RATE_RECORD_BYTES);
    const head = Buffer.from(written.join(''), 'latin1');
    assert.deepEqual(written.map((record) => isAdmitted(head, record, limit)), [true, true, true, false, false]);
  });

  it('admits the only record with limit 1, and not the second', () => {
    const written = records(2);
    const head = Buffer.from(written.join(''), 'latin1');
    assert.deepEqual(written.map((record) => isAdmitted(head, record, 1)), [true, false]);
  });

  it('admits no record the head does not hold whole: a read cut short admits nobody past it', () => {
    const written = records(3);
    // The third record's last byte is missing: it is not the record, whatever the limit.
    const head = Buffer.from(written.join(''), 'latin1').subarray(0, 3 * RATE_RECORD_BYTES - 1);
    assert.deepEqual(written.map((record) => isAdmitted(head, record, 5)), [true, true, false]);
  });
});

describe('PosterRateLimiter', () => {
  it('refuses the third request of a minute with limit 2, with Retry-After, and admits again when the window ends', async () => {
    let now = T0;
    const limiter = new PosterRateLimiter({ dir: freshDir(), limit: 2, clock: () => now });
    await limiter.take('ana');
    await limiter.take('ana');
    const refused = await refusal(limiter, 'ana');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '50');
    assert.equal(refused.message, "This token's subject has made its 2 poster requests of the minute (POSTER_RATE_LIMIT); try again in 50 s.");
    now = T0 + 49_999;
    assert.equal((await refusal(limiter, 'ana')).headers['retry-after'], '1');
    now = T0 + 50_000;
    await limiter.take('ana');
  });

  it('counts each subject on its own', async () => {
    const limiter = new PosterRateLimiter({ dir: freshDir(), limit: 1, clock: () => T0 });
    await limiter.take('ana');
    await limiter.take('bo');
    await refusal(limiter, 'ana');
  });

  it('shares the count with another process on the same directory, and across a restart', async () => {
    const dir = freshDir();
    const first = new PosterRateLimiter({ dir, limit: 2, clock: () => T0 });
    const second = new PosterRateLimiter({ dir, limit: 2, clock: () => T0 + 1000 });
    await first.take('ana');
    await second.take('ana');
    await refusal(first, 'ana');
    const restarted = new PosterRateLimiter({ dir, limit: 2, clock: () => T0 + 2000 });
    await refusal(restarted, 'ana');
  });

  it('admits exactly the limit when many requests race', async () => {
    const dir = freshDir();
    const limiters = [0, 1, 2].map(() => new PosterRateLimiter({ dir, limit: 5, clock: () => T0 }));
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => limiters[i % 3]!.take('ana')));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
    // Refused at the first check, most requests write nothing: the file stays small.
    const file = join(dir, `${subjectFileStem('ana')}.${rateWindow(T0).index}`);
    assert.ok(statSync(file).size <= 30 * RATE_RECORD_BYTES);
    assert.equal(statSync(file).size % RATE_RECORD_BYTES, 0);
  });

  it('deletes the files of windows before the last one', async () => {
    const dir = freshDir();
    let now = T0;
    const limiter = new PosterRateLimiter({ dir, limit: 2, clock: () => now });
    await limiter.take('ana');
    now = T0 + 60_000;
    await limiter.take('bo');
    assert.equal(readdirSync(dir).length, 2, 'the previous window stays');
    now = T0 + 120_000;
    await limiter.take('bo');
    const index = rateWindow(now).index;
    assert.deepEqual(readdirSync(dir).sort(), [`${subjectFileStem('bo')}.${index - 1}`, `${subjectFileStem('bo')}.${index}`].sort());
  });
});

describe('POST /api/posters with POSTER_RATE_LIMIT=2', async () => {
  const PASS = 'rate passphrase';
  const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
  writeKeyPair(keyPaths, PASS, false);
  const token = await issueToken(loadKeyPair(keyPaths, PASS).privateKey, 'rated', 3600, T0);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const varDir = join(root, 'var');
  let now = T0;
  const settings = {
    POSTER_API: '1',
    POSTER_RATE_LIMIT: '2',
    VAR_DIR: varDir,
    PUBLIC_DIR: join(root, 'public'),
    JWT_SECRET_KEY: keyPaths.secretKeyPath,
    JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
    JWT_PASSPHRASE: PASS,
  };
  const one = await startTestService(settings, { clock: () => now, renderPool: { size: 1 } });
  const two = await startTestService(settings, { clock: () => now, renderPool: { size: 1 } });
  // An invalid spec costs no rendering, and counts like any request that passed the token check.
  const post = (url: string) => send(url, 'POST', '/api/posters', headers, JSON.stringify({ title: '' }));

  it('answers the third request of the minute, made to a second instance, with 429 and Retry-After; the next window admits it', async () => {
    assert.equal((await post(one.url)).status, 422);
    assert.equal((await post(one.url)).status, 422);
    const refused = await post(two.url);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '50');
    const problem = problemOf(refused);
    assert.equal(problem.title, 'Too Many Requests');
    assert.equal(problem.detail, "This token's subject has made its 2 poster requests of the minute (POSTER_RATE_LIMIT); try again in 50 s.");
    assert.ok(two.log.lines.some((l) => l.level === 'ERROR' && l.message === problem.detail));
    now = T0 + 50_000;
    assert.equal((await post(two.url)).status, 422);
  });
});

describe('POST /api/posters: one rate-limit bucket per subject (POSTER_RATE_LIMIT=2)', async () => {
  const PASS = 'subject passphrase';
  const keyPaths = { secretKeyPath: join(root, 'jwt-subject', 'private.pem'), publicKeyPath: join(root, 'jwt-subject', 'public.pem') };
  writeKeyPair(keyPaths, PASS, false);
  const { privateKey } = loadKeyPair(keyPaths, PASS);
  const { SignJWT } = await import('jose');
  /** A token with these claims, as another issuer would write them (`sub` not always a string). */
  const tokenWith = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES512' }).setIssuedAt(T0 / 1000).setExpirationTime(T0 / 1000 + 600).sign(privateKey);
  const service = await startTestService({
    POSTER_API: '1',
    POSTER_RATE_LIMIT: '2',
    VAR_DIR: join(root, 'var-subjects'),
    PUBLIC_DIR: join(root, 'public-subjects'),
    JWT_SECRET_KEY: keyPaths.secretKeyPath,
    JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
    JWT_PASSPHRASE: PASS,
  }, { clock: () => T0, renderPool: { size: 1 } });
  const post = async (claims: Record<string, unknown>) =>
    send(service.url, 'POST', '/api/posters', { authorization: `Bearer ${await tokenWith(claims)}`, 'content-type': 'application/json' }, JSON.stringify({ title: '' }));

  it('counts sub 1 and sub 2 (numbers) apart: two requests of sub 1 leave sub 2 its own', async () => {
    assert.equal((await post({ sub: 1 })).status, 422);
    assert.equal((await post({ sub: 1 })).status, 422);
    assert.equal((await post({ sub: 1 })).status, 429, 'sub 1 is past its limit');
    assert.equal((await post({ sub: 2 })).status, 422, 'sub 2 has a bucket of its own');
    assert.equal((await post({ sub: '1' })).status, 422, 'the string "1" is another subject than the number 1');
  });

  it('counts a token of jwt token (sub and username) and an older one (username only) for the same user as one', async () => {
    assert.equal((await post({ sub: 'ana', username: 'ana' })).status, 422);
    assert.equal((await post({ username: 'ana' })).status, 422);
    assert.equal((await post({ sub: 'ana', username: 'ana' })).status, 429, 'ana is past her limit, whichever token she sends');
    assert.equal((await post({ username: 'ana' })).status, 429);
  });

  it('refuses a token without a usable subject (no sub or username) with a 401 that says so', async () => {
    for (const claims of [{}, { sub: null }, { sub: { id: 1 } }, { username: 7 }]) {
      const res = await post(claims);
      assert.equal(res.status, 401, JSON.stringify(claims));
      const detail = 'The token names no subject ("sub", a string or number, or "username", a string): POSTER_RATE_LIMIT counts requests per subject.';
      assert.equal(problemOf(res).detail, detail, JSON.stringify(claims));
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="problem-service", error="invalid_token", error_description="The token names no subject/, JSON.stringify(claims));
    }
  });
});

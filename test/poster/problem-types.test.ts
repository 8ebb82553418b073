/**
 * Every problem of the poster API has a type of its own (RFC 9457 3.1.1), so a client can branch
 * on `type` without reading `detail`; the incident log line carries it. The routing 404 keeps
 * the observed rule (the path's parent segment).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { problemOf, send, type RawResponse } from '../helpers/http.js';
import { clockAtWindowStart } from '../helpers/rate-window.js';
import { startTestService, type TestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'poster-types-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'problem types passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
const keys = { JWT_SECRET_KEY: keyPaths.secretKeyPath, JWT_PUBLIC_KEY: keyPaths.publicKeyPath, JWT_PASSPHRASE: PASS };

/** Headers of a JSON request by its own subject, so each case has a rate-limit bucket of its own. */
/** The services below run on this clock: the 422 and the 429 of one subject fall in one rate window. */
const clock = clockAtWindowStart();

async function asSubject(subject: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await issueToken(privateKey, subject, 600, clock())}`, 'content-type': 'application/json' };
}

/** Asserts the answer's problem type and the incident line that logged it. */
function assertType(service: TestService, res: RawResponse, status: number, name: string): void {
  assert.equal(res.status, status, `${name}: ${res.body}`);
  const type = `${service.url}/problem/1.0/${name}`;
  assert.equal(problemOf(res).type, type, name);
  const incident = `Incident: - Type: ${type} - Cause: ${status} - Title: ${problemOf(res).title}`;
  assert.ok(service.log.lines.some((l) => l.channel === 'app' && l.message === incident), `${name}: no incident line "${incident}"`);
}

describe('poster API problem types', async () => {
  // POSTER_MAX_BYTES=0: any new poster is a 507; POSTER_RATE_LIMIT=1: a subject's second request is a 429.
  const api = await startTestService({ POSTER_API: '1', PUBLIC_DIR: join(root, 'public'), POSTER_MAX_BYTES: '0', POSTER_RATE_LIMIT: '1', ...keys }, { clock });
  const post = async (subject: string | undefined, body: string, extra: Record<string, string> = {}) =>
    send(api.url, 'POST', '/api/posters', { ...(subject === undefined ? { 'content-type': 'application/json' } : await asSubject(subject)), ...extra }, body);

  it('gives each problem of POST /api/posters its own type, in the answer and the incident line', async () => {
    assertType(api, await post(undefined, '{}'), 401, 'unauthorized');
    assertType(api, await post('media', 'title=x', { 'content-type': 'text/plain' }), 415, 'unsupported-media-type');
    assertType(api, await post('large', JSON.stringify({ title: 'x', body: 'y'.repeat(70_000) })), 413, 'body-too-large');
    assertType(api, await post('json', '{"title": '), 400, 'invalid-json');
    assertType(api, await post('spec', JSON.stringify({ title: '' })), 422, 'invalid-poster-spec');
    assertType(api, await post('spec', JSON.stringify({ title: '' })), 429, 'rate-limited');
    assertType(api, await post('full', JSON.stringify({ title: 'no room' })), 507, 'storage-full');
  });

  it('keeps the observed rule for a routing 404 under the service namespace', async () => {
    const res = await send(api.url, 'GET', '/api/nothing', { accept: 'application/json' });
    assert.equal(res.status, 404);
    assert.equal(problemOf(res).type, `${api.url}/problem/api`);
  });

  it('gives a full render queue its own type (503)', async () => {
    const busy = await startTestService({ POSTER_API: '1', PUBLIC_DIR: join(root, 'busy'), ...keys }, { renderPool: { size: 1, maxQueued: 0 }, clock });
    const headers = await asSubject('busy');
    const answers = await Promise.all(['one', 'two', 'three'].map((title) =>
      send(busy.url, 'POST', '/api/posters', headers, JSON.stringify({ title, body: 'x'.repeat(900) }))));
    const refused = answers.find((a) => a.status === 503);
    assert.ok(refused, answers.map((a) => a.status).join(' '));
    assertType(busy, refused, 503, 'busy');
  });
});

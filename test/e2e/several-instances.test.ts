/**
 * Several machines: two instances of the service, run as programs, each with its own VAR_DIR
 * (and so its own log files), one PUBLIC_DIR they share as a shared volume would, and their
 * `<VAR_DIR>/poster-rate` both pointing at one shared directory (a symlink here, a mount on real
 * machines), behind a real nginx configured by the shipped site file. nginx says which instance
 * answered in an `X-Upstream-Addr` header added by the test's own main configuration, so every
 * answer through it is counted per instance.
 *
 * Shown: a poster made through one instance is served, byte for byte, by both; POSTER_MAX_BYTES
 * (the ledger in the shared posters directory) and POSTER_RATE_LIMIT (the shared rate files) hold
 * whichever instance answers; each instance's log holds whole lines only, one request.ERROR per
 * 4xx it answered. Needs nginx and openssl; fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { POSTER_RATE_DIR, POSTERS_DIR } from '../../src/poster/api.js';
import { posterFileName, renderPoster } from '../../src/poster/library.js';
import { RATE_WINDOW_MS } from '../../src/poster/limits/rate.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';
import { freePort, mainConfig, PROXY_ADDRESS, renderSite, startNginx, writeThrowAwayCertificate, stopNginxAndInstances, type RunningNginx } from './nginx-helpers.js';

const PASS = 'several instances passphrase';
const RATE_LIMIT = 3;
const SPEC_A = { title: 'Made on one, served by both', quality: 30 };
const SPEC_B = { title: 'The second poster that fits', quality: 30 };
const SPEC_C = { title: 'One poster too many', quality: 30 };

/** One answer, its body as bytes. */
interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly bytes: Buffer;
}

/**
 * One request on a fresh connection; the answer's body kept as bytes (posters are binary). An
 * https base URL is nginx's TLS listener, trusted through `ca` alone.
 */
function request(baseUrl: string, method: string, target: string, headers: Record<string, string> = {}, body?: string, ca?: string): Promise<Answer> {
  const url = new URL(baseUrl);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request({ host: url.hostname, port: url.port, method, path: target, headers, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer in 30 s to ${method} ${target}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Every line of an instance's day files (`test-YYYY-MM-DD.log`; two if the test spans midnight). */
function logLines(logDir: string): { files: string[]; lines: string[]; unterminated: string[] } {
  const files = readdirSync(logDir).filter((name) => /^test-\d{4}-\d{2}-\d{2}\.log$/.test(name)).sort();
  const lines: string[] = [];
  const unterminated: string[] = [];
  for (const name of files) {
    const text = readFileSync(join(logDir, name), 'utf8');
    if (text !== '' && !text.endsWith('\n')) unterminated.push(name);
    lines.push(...text.split('\n').slice(0, -1));
  }
  return { files, lines, unterminated };
}

/** `<YYYY-MM-DD HH:MM:SS> channel.LEVEL: message`, with no control character anywhere. */
const LOG_LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [a-z][a-z0-9_]*\.(DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL): [^\x00-\x1f\x7f]*$/;

const root = mkdtempSync(join(tmpdir(), 'several-instances-'));
// nginx workers drop root privileges (to nobody) and still need to reach their temp paths.
chmodSync(root, 0o755);
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);
/** The shared volume: PUBLIC_DIR of both instances. */
const publicDir = join(root, 'shared-public');
const postersDir = join(publicDir, POSTERS_DIR);
/** The shared rate directory: `<VAR_DIR>/poster-rate` of both instances links here. */
const sharedRateDir = join(root, 'shared-poster-rate');
mkdirSync(sharedRateDir);
after(() => rmSync(root, { recursive: true, force: true }));

// The renderer is deterministic: the bytes an instance will write are known, so the cap is set
// to hold exactly posters A and B.
const posterA = Buffer.from(await renderPoster(SPEC_A));
const posterB = Buffer.from(await renderPoster(SPEC_B));
const POSTER_MAX_BYTES = posterA.length + posterB.length;

/** A token for its own subject: the rate limit counts per subject. */
async function bearer(subject: string): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await issueToken(privateKey, subject, 600, Date.now())}`, 'content-type': 'application/json' };
}

/** A VAR_DIR of its own, its poster-rate directory the shared one (as a mount would make it). */
function instanceVarDir(name: string): string {
  const varDir = join(root, name, 'var');
  mkdirSync(varDir, { recursive: true });
  symlinkSync(sharedRateDir, join(varDir, POSTER_RATE_DIR));
  return varDir;
}

describe('two instances on "two machines" behind nginx (shared PUBLIC_DIR and poster-rate)', () => {
  let nginx: RunningNginx | undefined;
  // Registered before the instances start, so it runs before their own clean-up.
  after(async () => {
    await stopNginxAndInstances(nginx, instances);
  });

  const nginxPortChosen = freePort();
  const tlsPortChosen = freePort();
  const varDirs = [instanceVarDir('machine-1'), instanceVarDir('machine-2')];
  let instances: ServerProgram[] = [];
  let urls: string[] = [];
  /** nginx's TLS listener: plain HTTP is only redirected there (see the site file). */
  let nginxUrl = '';
  let certificate = '';
  /** Every answer through nginx: its status and the instance (0 or 1) that gave it. */
  const through: { status: number; instance: number }[] = [];

  before(async () => {
    const [nginxPort, tlsPort] = [await nginxPortChosen, await tlsPortChosen];
    nginxUrl = `https://127.0.0.1:${tlsPort}`;
    const env = (varDir: string) => ({
      POSTER_API: '1',
      PUBLIC_DIR: publicDir,
      // Under the test's own directory (removed after the file), with its poster-rate link.
      VAR_DIR: varDir,
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
      TRUSTED_PROXIES: PROXY_ADDRESS,
      // Poster URLs name the public origin, nginx's, not the instance's.
      BASE_URL: nginxUrl,
      POSTER_MAX_BYTES: String(POSTER_MAX_BYTES),
      POSTER_RATE_LIMIT: String(RATE_LIMIT),
    });
    instances = varDirs.map((varDir) => runServerProgram(env(varDir)));
    urls = await Promise.all(instances.map((i) => i.listening));
    await writeThrowAwayCertificate(root);
    certificate = readFileSync(join(root, 'cert.pem'), 'utf8');
    writeFileSync(join(root, 'problem-service.conf'), renderSite({
      UPSTREAMS: urls.map((u) => `server ${new URL(u).host};`).join('\n    '),
      HTTP_LISTEN: `127.0.0.1:${nginxPort}`,
      HTTPS_LISTEN: `127.0.0.1:${tlsPort}`,
      SERVER_NAME: '127.0.0.1 localhost',
      TLS_CERTIFICATE: join(root, 'cert.pem'),
      TLS_CERTIFICATE_KEY: join(root, 'key.pem'),
    }));
    // Which instance answered, for the counts per instance (inherited by the site's locations).
    writeFileSync(join(root, 'nginx.conf'), mainConfig(root, ['add_header X-Upstream-Addr $upstream_addr always;']));
    nginx = await startNginx(root, [nginxPort, tlsPort]);
  });

  /** A request through nginx, counted with the instance that answered it. */
  async function viaNginx(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Answer & { instance: number }> {
    const res = await request(nginxUrl, method, target, headers, body, certificate);
    const upstream = String(res.headers['x-upstream-addr']);
    const instance = urls.findIndex((u) => new URL(u).host === upstream);
    assert.notEqual(instance, -1, `${method} ${target}: answered by ${upstream}, not one instance (${urls.join(', ')})`);
    through.push({ status: res.status, instance });
    return { ...res, instance };
  }

  const postPoster = async (spec: object, subject: string) => viaNginx('POST', '/api/posters', await bearer(subject), JSON.stringify(spec));
  const json = (res: Answer) => JSON.parse(res.bytes.toString('utf8')) as Record<string, unknown>;

  it('serves a poster created through one instance from both, byte for byte', async (t) => {
    const created = await postPoster(SPEC_A, 'ana');
    assert.equal(created.status, 201, created.bytes.toString());
    const url = String(json(created).url);
    assert.equal(url, `${nginxUrl}/static/posters/${posterFileName(SPEC_A)}`);
    assert.equal(created.headers.location, url);
    assert.deepEqual(readFileSync(join(postersDir, posterFileName(SPEC_A))), posterA, 'the file on the shared volume');

    const servedBy = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const image = await viaNginx('GET', new URL(url).pathname);
      assert.equal(image.status, 200, `GET ${i} through nginx`);
      assert.equal(image.headers['content-type'], 'image/jpeg');
      assert.ok(image.bytes.equals(posterA), `GET ${i} through nginx (instance ${image.instance}): other bytes`);
      servedBy.add(image.instance);
    }
    assert.deepEqual([...servedBy].sort(), [0, 1], 'both instances served it through nginx');
    for (const [index, instanceUrl] of urls.entries()) {
      const image = await request(instanceUrl, 'GET', new URL(url).pathname);
      assert.equal(image.status, 200, `instance ${index} directly`);
      assert.equal(image.headers['content-type'], 'image/jpeg');
      assert.ok(image.bytes.equals(posterA), `instance ${index} directly: other bytes`);
    }
    t.diagnostic(`created by instance ${created.instance}; 4 GETs through nginx served by ${[...servedBy].join(' and ')}`);
  });

  it('holds POSTER_MAX_BYTES across instances: the next new poster is a 507 on both, an existing one still a 201', async (t) => {
    const second = await postPoster(SPEC_B, 'quota-b');
    assert.equal(second.status, 201, second.bytes.toString());
    // The store now holds exactly POSTER_MAX_BYTES; each instance learns of the other's poster
    // from the ledger in the shared directory.
    const refusedBy = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const res = await postPoster(SPEC_C, `quota-c${i}`);
      assert.equal(res.status, 507, `new poster ${i} (instance ${res.instance}): ${res.bytes.toString()}`);
      const problem = json(res);
      assert.equal(problem.limit, POSTER_MAX_BYTES);
      assert.equal(problem.used, POSTER_MAX_BYTES);
      refusedBy.add(res.instance);
    }
    assert.deepEqual([...refusedBy].sort(), [0, 1], 'both instances refused the new poster');
    const acceptedBy = new Set<number>();
    for (const [i, spec] of [SPEC_A, SPEC_B, SPEC_A, SPEC_B].entries()) {
      const res = await postPoster(spec, `quota-again${i}`);
      assert.equal(res.status, 201, `existing poster ${i} (instance ${res.instance}): ${res.bytes.toString()}`);
      acceptedBy.add(res.instance);
    }
    assert.deepEqual([...acceptedBy].sort(), [0, 1], 'both instances still answer 201 for existing posters');
    const stored = readdirSync(postersDir).filter((name) => !name.startsWith('.')).sort();
    assert.deepEqual(stored, [posterFileName(SPEC_A), posterFileName(SPEC_B)].sort(), 'a refused poster leaves no file');
    t.diagnostic(`cap ${POSTER_MAX_BYTES} bytes (A ${posterA.length} + B ${posterB.length}); B by instance ${second.instance}; 507 from ${[...refusedBy].join(' and ')}`);
  });

  it(`holds POSTER_RATE_LIMIT=${RATE_LIMIT} across instances sharing poster-rate: the 4th request of the minute is a 429 with Retry-After on both`, async (t) => {
    for (const varDir of varDirs) assert.ok(lstatSync(join(varDir, POSTER_RATE_DIR)).isSymbolicLink());
    // All six requests in one window: start early in a minute if this one is nearly over.
    const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const window = Math.floor(Date.now() / RATE_WINDOW_MS);
    const headers = await bearer('rate');
    const answers: { status: number; instance: number; retryAfter: string | undefined }[] = [];
    for (let i = 0; i < RATE_LIMIT + 3; i++) {
      // An existing poster: no render, but it counts like any request past the token check.
      const res = await viaNginx('POST', '/api/posters', headers, JSON.stringify(SPEC_A));
      answers.push({ status: res.status, instance: res.instance, retryAfter: res.headers['retry-after'] });
    }
    assert.equal(Math.floor(Date.now() / RATE_WINDOW_MS), window, 'the minute changed during the test');
    assert.deepEqual(answers.map((a) => a.status), [201, 201, 201, 429, 429, 429], JSON.stringify(answers));
    const admitted = answers.slice(0, RATE_LIMIT);
    const refused = answers.slice(RATE_LIMIT);
    assert.deepEqual([...new Set(admitted.map((a) => a.instance))].sort(), [0, 1], 'both instances admitted some');
    assert.deepEqual([...new Set(refused.map((a) => a.instance))].sort(), [0, 1], 'both instances refused some');
    for (const a of refused) {
      const seconds = Number(a.retryAfter);
      assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After: ${a.retryAfter}`);
    }
    t.diagnostic(`answered by instances ${answers.map((a) => `${a.instance}:${a.status}`).join(', ')}`);
  });

  it('keeps each instance\'s log whole: well-formed lines only, one request.ERROR per 4xx it answered, the 404s split across both', async (t) => {
    const targets = Array.from({ length: 24 }, (_, i) => (i % 6 === 5 ? `/several/${'long-'.repeat(600)}${i}` : `/several/missing-${i}?q=caf%C3%A9`));
    // Six at a time: both instances log while the other does.
    for (let i = 0; i < targets.length; i += 6) {
      const answers = await Promise.all(targets.slice(i, i + 6).map((target) => viaNginx('GET', target, { accept: 'application/json' })));
      for (const res of answers) assert.equal(res.status, 404);
    }
    const expected = [0, 1].map((instance) => {
      const mine = through.filter((a) => a.instance === instance);
      return {
        errors: mine.filter((a) => a.status >= 400 && a.status < 500).length,
        critical: mine.filter((a) => a.status >= 500).length,
        notFound: mine.filter((a) => a.status === 404).length,
      };
    });
    const logDirs = varDirs.map((varDir) => join(varDir, 'log'));
    const count = (lines: string[], pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
    const observe = () => logDirs.map((dir) => {
      const { files, lines, unterminated } = logLines(dir);
      return {
        files,
        lines,
        unterminated,
        errors: count(lines, / request\.ERROR: /),
        critical: count(lines, / request\.CRITICAL: /),
        notFound: count(lines, / request\.ERROR: No route found for "GET \/several\//),
      };
    });
    // Lines reach the file within 20 ms of being logged; allow for a slow machine.
    const deadline = Date.now() + 5_000;
    let seen = observe();
    while (seen.some((s, i) => s.errors < expected[i]!.errors || s.critical < expected[i]!.critical) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = observe();
    }
    for (const [i, s] of seen.entries()) {
      assert.ok(s.files.length >= 1, `instance ${i}: no day file in its own log directory`);
      assert.deepEqual(s.unterminated, [], `instance ${i}: a file ends inside a line`);
      const malformed = s.lines.filter((line) => !LOG_LINE.test(line));
      assert.deepEqual(malformed, [], `instance ${i}: lines not of the form <date time> channel.LEVEL: message`);
      assert.deepEqual(
        { errors: s.errors, critical: s.critical, notFound: s.notFound },
        expected[i],
        `instance ${i}: log lines against the answers it gave through nginx`,
      );
      assert.ok(s.notFound > 0, `instance ${i} logged none of the 404s`);
    }
    assert.equal(seen[0]!.notFound + seen[1]!.notFound, targets.length);
    const statuses = (instance: number) => {
      const tally = new Map<number, number>();
      for (const a of through.filter((x) => x.instance === instance)) tally.set(a.status, (tally.get(a.status) ?? 0) + 1);
      return [...tally].sort(([a], [b]) => a - b).map(([status, n]) => `${n}×${status}`).join(' ');
    };
    t.diagnostic(`${through.length} requests through nginx: instance 0 ${statuses(0)}; instance 1 ${statuses(1)}`);
    t.diagnostic(`log lines: instance 0 ${seen[0]!.lines.length}, instance 1 ${seen[1]!.lines.length}`);
  });
});

describe('two instances that do not share poster-rate (each VAR_DIR whole, as by default)', () => {
  let instances: ServerProgram[] = [];
  // Started once the instances above are done with, so they do not compete for the cores.
  before(() => {
    instances = [0, 1].map((n) => runServerProgram({
      POSTER_API: '1',
      PUBLIC_DIR: join(root, 'apart-public'),
      VAR_DIR: join(root, `apart-${n}`, 'var'),
      JWT_SECRET_KEY: keyPaths.secretKeyPath,
      JWT_PUBLIC_KEY: keyPaths.publicKeyPath,
      JWT_PASSPHRASE: PASS,
      POSTER_RATE_LIMIT: '1',
    }));
  });
  after(async () => {
    await Promise.all(instances.map(async (instance) => {
      if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
      instance.child.kill('SIGTERM');
      await instance.exited;
    }));
  });

  it('counts the limit per instance: a subject gets POSTER_RATE_LIMIT requests a minute from each', async () => {
    const urls = await Promise.all(instances.map((i) => i.listening));
    const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    const headers = await bearer('not-shared');
    // An invalid spec (422) counts like any request past the token check, and renders nothing.
    const statuses = [];
    for (const url of [...urls, ...urls]) statuses.push((await request(url, 'POST', '/api/posters', headers, '{}')).status);
    assert.deepEqual(statuses, [422, 422, 429, 429], 'instance 0, 1, then 0, 1 again');
  });
});

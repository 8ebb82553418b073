/**
 * The systemd files of deploy/ as an operator gets them: the HTTPS drop-in
 * (deploy/systemd/https.conf) read on top of the unit, and the service started in this process
 * with the settings the two give it, as systemd would start it; and where the unit's
 * Documentation= points. The certbot hook the drop-in installs runs for real in
 * test/e2e/certbot-hook.test.ts.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { readSettingNames } from '../src/config/setting-names.js';
import { send } from './helpers/http.js';
import { handshake, requestHttp1, TLS_SETTINGS } from './helpers/https.js';
import { startTestService } from './helpers/service.js';
import { environmentOf, readUnitFile, serviceValues } from './helpers/systemd-unit.js';

const UNIT_FILE = 'deploy/systemd/problem-service.service';
const DROP_IN_FILE = 'deploy/systemd/https.conf';
const HOOK_FILE = 'deploy/certbot/problem-service-deploy-hook';
const unit = readUnitFile(UNIT_FILE);
const dropIn = readUnitFile(DROP_IN_FILE);
const dropInEnv = environmentOf(dropIn);

/** The one value of `key` in `file`'s [Service]. */
function single(file: string, key: string): string {
  const values = serviceValues(readUnitFile(file), key);
  assert.equal(values.length, 1, `${file}: [Service] ${key} wanted once, found ${values.length} times`);
  return values[0]!;
}

/** A default the hook gives one of its variables: `dir=${PROBLEM_SERVICE_TLS_DIR:-/etc/…}`. */
function hookDefault(variable: string): string {
  const found = new RegExp(`^\\w+=\\$\\{${variable}:-([^}\\s]+)\\}$`, 'm').exec(readFileSync(HOOK_FILE, 'utf8'));
  assert.ok(found, `${HOOK_FILE}: no default for ${variable}`);
  return found[1]!;
}

/**
 * systemd's CapabilityBoundingSet= over a unit and its drop-ins: each line adds its capabilities,
 * an empty one empties the set.
 */
function boundingSet(...files: readonly string[]): string[] {
  const set = new Set<string>();
  for (const file of files) {
    for (const value of serviceValues(readUnitFile(file), 'CapabilityBoundingSet')) {
      assert.ok(!value.startsWith('~'), `${file}: an inverted CapabilityBoundingSet=${value} is not read here`);
      if (value === '') set.clear();
      for (const name of value.split(/\s+/).filter(Boolean)) set.add(name);
    }
  }
  return [...set].sort();
}

describe('deploy/systemd/https.conf', () => {
  it('sets settings of the service only, each spelt as the service reads it', () => {
    const settings = readSettingNames();
    const unknown = Object.keys(dropInEnv).filter((name) => !settings.has(name));
    assert.deepEqual(unknown, [], `${DROP_IN_FILE}: not settings of the service`);
  });

  it('listens on 443 on every address and redirects from 80, as its comment says', () => {
    assert.equal(dropInEnv.HOST, '0.0.0.0');
    assert.equal(dropInEnv.PORT, '443');
    assert.equal(dropInEnv.REDIRECT_PORT, '80');
  });

  it('binds those ports as the unit\'s user with CAP_NET_BIND_SERVICE and no other capability', () => {
    assert.notEqual(single(UNIT_FILE, 'User'), 'root');
    assert.deepEqual(serviceValues(dropIn, 'AmbientCapabilities'), ['CAP_NET_BIND_SERVICE']);
    assert.deepEqual(boundingSet(UNIT_FILE, DROP_IN_FILE), ['CAP_NET_BIND_SERVICE']);
  });

  it('reads the certificate and key from the directory the certbot hook writes, which its install steps make for the unit\'s group', () => {
    const dir = hookDefault('PROBLEM_SERVICE_TLS_DIR');
    assert.equal(posix.dirname(dropInEnv.TLS_CERT ?? ''), dir, 'TLS_CERT');
    assert.equal(posix.dirname(dropInEnv.TLS_KEY ?? ''), dir, 'TLS_KEY');
    const group = single(UNIT_FILE, 'Group');
    assert.equal(hookDefault('PROBLEM_SERVICE_GROUP'), group, 'the group the hook gives the key');
    const steps = readFileSync(DROP_IN_FILE, 'utf8');
    assert.ok(steps.includes(`#   install -d -m 0750 -g ${group} ${dir}\n`), `${DROP_IN_FILE}: no install step makes ${dir} for ${group}`);
  });

  describe('with the unit\'s settings under it, on loopback and free ports, with the test certificate', async () => {
    // Only what a test cannot use is replaced, and only where the files set it: a line missing
    // from the drop-in stays missing.
    const local: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', REDIRECT_PORT: '0', ADMIN_PORT: '0', ...TLS_SETTINGS };
    const env = environmentOf(unit, dropIn);
    for (const name of Object.keys(local)) if (name in env) env[name] = local[name]!;
    const service = await startTestService(env);
    const httpsPort = new URL(service.url).port;

    it('serves HTTPS with the certificate TLS_CERT names', async () => {
      assert.match(service.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const served = new X509Certificate(readFileSync(TLS_SETTINGS.TLS_CERT!)).serialNumber;
      assert.equal((await handshake(service.url)).serial, served);
      assert.equal((await requestHttp1(service.url, 'GET', '/')).status, 200);
    });

    it('answers plain HTTP on REDIRECT_PORT with 308 to https:// and the same path and query', async () => {
      assert.ok(service.redirectUrl, 'no redirect listener');
      const port = new URL(service.redirectUrl).port;
      const res = await send(service.redirectUrl, 'GET', '/a/b?c=1', { host: `localhost:${port}` });
      assert.equal(res.status, 308);
      assert.equal(res.headers.location, `https://localhost:${httpsPort}/a/b?c=1`);
    });

    it('trusts no forwarded header, though the unit trusts a proxy on loopback', async () => {
      // A trusted proxy's X-Request-Id is kept (docs/operating.md, "Request ids"); a client's is not.
      const res = await requestHttp1(service.url, 'GET', '/', { 'x-request-id': 'forged-by-the-client' });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f]{32}$/);
    });
  });
});

describe('deploy/systemd/problem-service.service Documentation=', () => {
  it('names the docs page of the unit, where the install directory holds it', () => {
    const [documentation, ...more] = unit.get('Unit')?.get('Documentation') ?? [];
    assert.ok(documentation !== undefined && more.length === 0, 'one Documentation= line');
    const home = single(UNIT_FILE, 'WorkingDirectory');
    assert.ok(documentation.startsWith(`file://${home}/`), `${documentation} is not under ${home}`);
    const page = documentation.slice(`file://${home}/`.length);
    // The install directory holds the release, or the package, which ships docs/ (package.json's files).
    const shipped = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] };
    assert.ok(shipped.files.includes(page.split('/')[0]!), `${page} is not in the package`);
    assert.ok(existsSync(page), `${page} does not exist`);
    assert.ok(readFileSync(page, 'utf8').includes(`\`${UNIT_FILE}\``), `${page} does not describe ${UNIT_FILE}`);
  });
});

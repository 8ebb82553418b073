import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, ConfigErrors, loadConfig, parseConfig } from '../../src/config/config.js';

const PROD_SECRETS = {
  APP_ID: 'app-id-0001', APP_KEY: 'key-0002', ACCESS_TOKEN: 'token-0003', APP_SECRET: 's3cr3t-value', JWT_PASSPHRASE: 'pass-0004', BROKER_PASSWORD: 'bpw-0005',
};

function configError(vars: Record<string, string>): ConfigError {
  let error: unknown;
  try {
    parseConfig(vars, '/srv/app');
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof ConfigError, `no ConfigError for ${JSON.stringify(vars)}: ${String(error)}`);
  return error;
}

describe('parseConfig defaults', () => {
  const config = parseConfig({}, '/srv/app');
  it('runs dev with debug on 127.0.0.1:8000', () => {
    assert.equal(config.appEnv, 'dev');
    assert.equal(config.debug, true);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8000);
    assert.equal(config.baseUrl, undefined);
  });
  it('has the default namespaces', () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(config.namespaces).map(([k, v]) => [k, v.path])),
      { doc: '/doc/', problem: '/problem/', schema: '/schema/', service: '/api/', static: '/static/', admin: '/admin/' },
    );
  });
  it('puts logs under var/log, public files under public/', () => {
    assert.equal(config.logDir, '/srv/app/var/log');
    assert.equal(config.publicDir, '/srv/app/public');
    assert.equal(config.logTimeZone, 'Europe/Madrid');
    assert.equal(config.logMaxFiles, 10);
  });
  it('has the observed JWT figures and 404 cache policy', () => {
    assert.equal(config.jwt.tokenTtl, 3600);
    assert.equal(config.jwt.clockSkew, 10);
    assert.equal(config.notFoundCacheControl, 'immutable, max-age=31536000, public');
  });
  it('builds the broker URL', () => assert.equal(config.brokerUrl, 'amqp://guest@localhost:5672/%2F'));
  it('is frozen all the way down', () => {
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.namespaces.doc));
    assert.ok(Object.isFrozen(config.jwt));
  });
  it('turns debug off outside dev', () => assert.equal(parseConfig({ APP_ENV: 'test' }, '/').debug, false));
});

describe('parseConfig errors', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['a port out of range', { PORT: '70000' }, /^Invalid setting PORT: 70000 is out of range \(0-65535\)$/],
    ['a port that is not a number', { PORT: '80a' }, /^Invalid setting PORT: "80a" is not a whole number$/],
    ['an unknown APP_ENV', { APP_ENV: 'staging' }, /^Invalid setting APP_ENV: "staging" is not one of dev, prod, test$/],
    ['APP_DEBUG that is no flag', { APP_DEBUG: 'maybe' }, /^Invalid setting APP_DEBUG: "maybe" is not a flag: 1, true, on, yes or 0, false, off, no$/],
    ['a base that is not a path', { DOC_BASE: 'doc/' }, /^Invalid setting DOC_BASE: /],
    ['a base without its trailing slash', { STATIC_BASE: '/static' }, /^Invalid setting STATIC_BASE: /],
    ['a base URL with a query', { PROBLEM_BASE: 'https://e.org/p/?x' }, /^Invalid setting PROBLEM_BASE: /],
    ['a BASE_URL with a path', { BASE_URL: 'https://e.org/api' }, /^Invalid setting BASE_URL: /],
    ['a BASE_URL that is not http', { BASE_URL: 'ftp://e.org' }, /^Invalid setting BASE_URL: /],
    ['a zero TTL', { JWT_TOKEN_TTL: '0' }, /^Invalid setting JWT_TOKEN_TTL: 0 is out of range/],
    ['a negative skew', { JWT_CLOCK_SKEW: '-1' }, /^Invalid setting JWT_CLOCK_SKEW: "-1" is not a whole number$/],
    ['an unknown time zone', { LOG_TIMEZONE: 'Mars/Olympus' }, /^Invalid setting LOG_TIMEZONE: /],
    ['a bad trusted proxy', { TRUSTED_PROXIES: '10.0.0.0/33' }, /^Invalid setting TRUSTED_PROXIES: "10.0.0.0\/33" has a prefix length outside 0-32$/],
    ['a bad trusted host', { TRUSTED_HOSTS: 'ex ample' }, /^Invalid setting TRUSTED_HOSTS: /],
    ['a bad broker port', { BROKER_PORT: '0' }, /^Invalid setting BROKER_PORT: /],
    ['WORKERS neither a number nor auto', { WORKERS: 'all' }, /^Invalid setting WORKERS: "all" is not a whole number or auto$/],
    ['WORKERS=0', { WORKERS: '0' }, /^Invalid setting WORKERS: 0 is out of range \(1-256\)$/],
  ];
  for (const [name, vars, message] of cases) {
    it(`stops on ${name}`, () => assert.match(configError(vars).message, message, name));
  }

  it('starts in prod with no credential set: none is needed just to start', () => {
    const config = parseConfig({ APP_ENV: 'prod' }, '/');
    assert.equal(config.appEnv, 'prod');
    assert.deepEqual(Object.values(config.secrets), ['', '', '', '', '', '', '']);
    assert.equal(config.brokerUrl, 'amqp://guest@localhost:5672/%2F');
  });

  it('refuses a set credential too short to be masked, in one line that does not echo it', () => {
    const err = configError({ APP_ENV: 'prod', APP_SECRET: 'k9z' });
    assert.equal(err.message, 'Invalid setting APP_SECRET: is shorter than 4 characters, too short to be masked where it could appear');
    assert.ok(!err.message.includes('k9z'));
  });

  it('refuses a credential with a line break, naming where, never what', () => {
    const err = configError({ BROKER_PASSWORD: 'first-line\nsecond-line' });
    assert.equal(err.message, 'Invalid setting BROKER_PASSWORD: contains a control character (at position 11)');
  });

  it('refuses a credential longer than 4096 characters', () => {
    const err = configError({ ACCESS_TOKEN: 'x'.repeat(4097) });
    assert.equal(err.message, 'Invalid setting ACCESS_TOKEN: is longer than 4096 characters');
  });

  it('names every bad credential and every bad setting in one line', () => {
    const err = configError({ APP_ENV: 'prod', APP_ID: 'a1', APP_KEY: 'k-value', BROKER_PASSWORD: 'b\rvalue', JWT_PASSPHRASE: 'p-value', PORT: '70000' });
    assert.equal(
      err.message,
      'Invalid settings (3): APP_ID: is shorter than 4 characters, too short to be masked where it could appear; BROKER_PASSWORD: contains a control character (at position 2); PORT: 70000 is out of range (0-65535)',
    );
    assert.ok(!err.message.includes('\n'));
    assert.deepEqual((err as ConfigErrors).settings, ['APP_ID', 'BROKER_PASSWORD', 'PORT']);
    for (const value of ['a1', 'k-value', 'b\rvalue', 'p-value']) assert.ok(!err.message.includes(value), value);
  });

  it('never echoes a secret in an error', () => {
    const err = configError({ APP_ENV: 'prod', ...PROD_SECRETS, PORT: 'x' });
    for (const value of Object.values(PROD_SECRETS)) assert.ok(!err.message.includes(value), value);
  });

  it('accepts prod with every secret set', () => {
    const config = parseConfig({ APP_ENV: 'prod', ...PROD_SECRETS }, '/');
    assert.equal(config.secrets.APP_SECRET, 's3cr3t-value');
    assert.equal(config.brokerUrl, 'amqp://guest:bpw-0005@localhost:5672/%2F');
  });

  it('runs one worker per available core with WORKERS=auto', () => {
    assert.equal(parseConfig({ WORKERS: 'auto' }, '/', 6).workers, 6);
    assert.equal(parseConfig({ WORKERS: 'auto' }, '/').workers, availableParallelism());
  });

  it('runs at most 256 workers with WORKERS=auto on a larger machine', () => {
    assert.equal(parseConfig({ WORKERS: 'auto' }, '/', 512).workers, 256);
  });

  it('takes WORKERS as asked, more than the cores included', () => {
    assert.equal(parseConfig({ WORKERS: '8' }, '/', 2).workers, 8);
  });

  it('accepts a namespace on its own origin', () => {
    const config = parseConfig({ DOC_BASE: 'https://docs.example.com/v1/' }, '/');
    assert.deepEqual(config.namespaces.doc, { origin: 'https://docs.example.com', path: '/v1/' });
  });
});

describe('loadConfig env files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, '.env'), 'PORT=1000\nHOST=0.0.0.0\nLOG_MAX_FILES=3\nAPP_ID=from-env\n');
  writeFileSync(join(dir, '.env.local'), 'PORT=1001\n');
  writeFileSync(join(dir, '.env.dev'), 'PORT=1002\nLOG_MAX_FILES=4\n');
  writeFileSync(join(dir, '.env.dev.local'), 'PORT=1003\n# a comment\nAPP_KEY="quoted value"\n');
  writeFileSync(join(dir, '.env.test'), 'PORT=2000\n');

  it('layers .env, .env.local, .env.<env>, .env.<env>.local', () => {
    const config = loadConfig({ dir, env: {} });
    assert.equal(config.port, 1003);
    assert.equal(config.logMaxFiles, 4);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.secrets.APP_ID, 'from-env');
    assert.equal(config.secrets.APP_KEY, 'quoted value');
  });

  it('lets the real environment win over every file', () => {
    assert.equal(loadConfig({ dir, env: { PORT: '5' } }).port, 5);
  });

  it('skips .env.local in the test environment', () => {
    const config = loadConfig({ dir, env: { APP_ENV: 'test' } });
    assert.equal(config.port, 2000);
  });

  it('resolves relative paths against the directory', () => {
    assert.equal(loadConfig({ dir, env: { LOG_DIR: 'logs' } }).logDir, join(dir, 'logs'));
  });
});

describe('REDIS_URL', () => {
  it('is unset by default: the limits stay in local files', () => {
    assert.equal(parseConfig({}, '/srv/app').redis, undefined);
  });
  it('gives the endpoint to connect to, password included', () => {
    const config = parseConfig({ REDIS_URL: 'rediss://limits:s%40cret-pw@redis.internal:6380/2' }, '/srv/app');
    assert.deepEqual(config.redis, { tls: true, host: 'redis.internal', port: 6380, username: 'limits', password: 's@cret-pw', db: 2 });
  });
  it('refuses a bad URL naming the setting once, never showing the password', () => {
    const err = configError({ REDIS_URL: 'http://:hunter2-pw@redis.internal:6379/0' });
    assert.equal(err.setting, 'REDIS_URL');
    assert.match(err.message, /^Invalid setting REDIS_URL: the scheme must be redis:\/\/ or rediss:\/\/; expected /);
    assert.ok(!err.message.includes('hunter2'), err.message);
    const port = configError({ REDIS_URL: 'redis://:hunter2-pw@redis.internal:99999/0' });
    assert.ok(!port.message.includes('hunter2'), port.message);
    assert.equal(port.message.match(/REDIS_URL/g)?.length, 1, port.message);
  });
});

describe('flags', () => {
  it('read as Symfony reads them: 1/true/on/yes and 0/false/off/no, any case, spaces around ignored', () => {
    for (const word of ['1', 'true', 'on', 'yes', 'TRUE', 'On', ' yes ']) {
      const config = parseConfig({ APP_ENV: 'prod', APP_DEBUG: word, POSTER_API: '0', ACCESS_LOG: word }, '/');
      assert.equal(config.debug, true, word);
      assert.equal(config.accessLog, true, word);
    }
    for (const word of ['0', 'false', 'off', 'no', 'FALSE', 'Off']) {
      const config = parseConfig({ APP_ENV: 'dev', APP_DEBUG: word, ACCESS_LOG: word }, '/');
      assert.equal(config.debug, false, word);
      assert.equal(config.accessLog, false, word);
    }
  });

  it('refuse anything else, naming the words they take', () => {
    for (const word of ['2', 'y', 'enabled', 'truee']) {
      assert.throws(() => parseConfig({ APP_ENV: 'prod', POSTER_API: word }, '/'), new RegExp(`^ConfigError: Invalid setting POSTER_API: "${word}" is not a flag: 1, true, on, yes or 0, false, off, no$`));
    }
  });
});

/**
 * Typos are caught: the start-up warnings name the lines of env files that set nothing, the
 * names there that are no setting, the environment variables that look like a setting
 * misspelled, and CORS_ORIGINS without POSTER_API; never a value.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/config.js';
import type { EnvFile } from '../../src/config/env-files.js';
import { editDistance, nearSettingName, readSettingNames } from '../../src/config/setting-names.js';
import { readSettingWarnings, settingWarnings } from '../../src/config/setting-warnings.js';

const SETTINGS_PAGE = fileURLToPath(new URL('../../docs/settings.md', import.meta.url));
const SETTINGS = readSettingNames();
const QUIET = { corsOrigins: { kind: 'off' }, posterApi: false } as const;

/** The names in the first column of the table of settings in docs/settings.md (`BROKER_HOST`, `BROKER_PORT`, … on one row). */
function documentedSettings(): string[] {
  const section = readFileSync(SETTINGS_PAGE, 'utf8').split('\n## Every setting\n')[1]!.split('\n## ')[0]!;
  return section.split('\n').filter((line) => line.startsWith('| `')).flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

/** An env file as openEnvFiles gives it, for the pure warnings. */
function envFile(name: string, entries: EnvFile['entries'], notSettings: number[] = []): EnvFile {
  return { name, vars: {}, entries, notSettings };
}

describe('readSettingNames', () => {
  it('is every setting docs/settings.md documents, and no other: the table reads each name with nothing set', () => {
    assert.deepEqual([...SETTINGS].sort(), documentedSettings().sort());
  });

  it('has the names read inside derived fields, ADMIN_HOST (read only with ADMIN_PORT) included', () => {
    for (const name of ['BROKER_HOST', 'BROKER_PORT', 'BROKER_USER', 'BROKER_VHOST', 'ADMIN_HOST', 'ADMIN_PORT', 'TLS_CERT', 'TLS_KEY', 'HTTP2', 'HSTS_MAX_AGE', 'REDIRECT_PORT', 'WORKERS']) {
      assert.ok(SETTINGS.has(name), `${name} is a setting`);
    }
  });
});

describe('editDistance', () => {
  it('counts an insertion, a deletion, a substitution and a swap of neighbours as one edit each', () => {
    assert.equal(editDistance('PORTT', 'PORT'), 1, 'insertion');
    assert.equal(editDistance('PRT', 'PORT'), 1, 'deletion');
    assert.equal(editDistance('PART', 'PORT'), 1, 'substitution');
    assert.equal(editDistance('PROT', 'PORT'), 1, 'swap');
    assert.equal(editDistance('HOME', 'HOST'), 2, 'two substitutions');
    assert.equal(editDistance('', 'PORT'), 4, 'from nothing');
    assert.equal(editDistance('KITTEN', 'SITTING'), 3, 'the textbook pair');
  });

  it('edits no character twice (optimal string alignment): CA to ABC is 3', () => {
    assert.equal(editDistance('CA', 'ABC'), 3);
  });
});

describe('nearSettingName', () => {
  it('finds the setting a misspelling means', () => {
    assert.equal(nearSettingName('PORTT', SETTINGS), 'PORT', 'PORTT');
    assert.equal(nearSettingName('POSTER_APi', SETTINGS), 'POSTER_API', 'POSTER_APi, by case');
    assert.equal(nearSettingName('port', SETTINGS), 'PORT', 'port, by case');
    assert.equal(nearSettingName('WORKER', SETTINGS), 'WORKERS', 'WORKER');
    assert.equal(nearSettingName('HTSS_MAX_AGE', SETTINGS), 'HSTS_MAX_AGE', 'HTSS_MAX_AGE, a swap');
    assert.equal(nearSettingName('LOG_DIRECTORY', SETTINGS), undefined, 'LOG_DIRECTORY is 6 edits from LOG_DIR');
  });

  it('allows 2 edits when both names have 5 characters or more, and not 3', () => {
    assert.equal(nearSettingName('WXRKXRS', SETTINGS), 'WORKERS', '2 edits');
    assert.equal(nearSettingName('WXRKXRX', SETTINGS), undefined, '3 edits');
  });

  it('allows 1 edit when either name is shorter than 5 characters, and not 2', () => {
    assert.equal(nearSettingName('HOSX', SETTINGS), 'HOST', '1 edit');
    assert.equal(nearSettingName('HOXX', SETTINGS), undefined, '2 edits');
    assert.equal(nearSettingName('PORTTT', SETTINGS), undefined, 'PORTTT: 2 edits from PORT');
  });

  it('finds nothing for a setting itself', () => {
    assert.equal(nearSettingName('PORT', SETTINGS), undefined);
    assert.equal(nearSettingName('HOST', SETTINGS), undefined, 'HOST');
    assert.equal(nearSettingName('HTTP2', SETTINGS), undefined, 'HTTP2');
  });

  it('finds nothing for the variables every system sets', () => {
    const everyday = [
      'PATH', 'HOME', 'LANG', 'LANGUAGE', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'PWD', 'OLDPWD', 'HOSTNAME', 'TMPDIR', 'TZ', 'TZDIR',
      'EDITOR', 'PAGER', 'DISPLAY', 'MAIL', 'SHLVL', 'LC_ALL', 'CI', 'NODE_OPTIONS', 'NODE_ENV', 'NODE_EXTRA_CA_CERTS',
      'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'SSL_CERT_FILE', 'SERVICE_TARGET', 'INVOCATION_ID', 'JOURNAL_STREAM',
    ];
    for (const name of everyday) assert.equal(nearSettingName(name, SETTINGS), undefined, name);
  });
});

describe('settingWarnings', () => {
  it('says nothing when every line and name is a setting', () => {
    const files = [envFile('.env', [{ name: 'PORT', line: 1 }, { name: 'APP_SECRET', line: 2 }])];
    assert.deepEqual(settingWarnings({ files, env: { PORT: '8000', PATH: '/bin' }, config: QUIET, settings: SETTINGS }), []);
  });

  it('names the lines of each file that are not NAME=value, in one line per file', () => {
    const files = [envFile('.env', [], [3]), envFile('.env.local', [], [2, 5])];
    assert.deepEqual(settingWarnings({ files, env: {}, config: QUIET, settings: SETTINGS }), [
      'warning: .env line 3 is not NAME=value, so it does nothing',
      'warning: .env.local lines 2, 5 are not NAME=value, so they do nothing',
    ]);
  });

  it('names each name of a file that is no setting, with the one it looks like', () => {
    const files = [envFile('.env.prod', [{ name: 'PORTT', line: 1 }, { name: 'DATABASE_URL', line: 4 }, { name: 'POSTER_APi', line: 7 }])];
    assert.deepEqual(settingWarnings({ files, env: {}, config: QUIET, settings: SETTINGS }), [
      'warning: .env.prod line 1: PORTT is not a setting, so it does nothing; did you mean PORT?',
      'warning: .env.prod line 4: DATABASE_URL is not a setting, so it does nothing',
      'warning: .env.prod line 7: POSTER_APi is not a setting, so it does nothing; did you mean POSTER_API?',
    ]);
  });

  it('names an environment variable only when it is near a setting and is not one', () => {
    const env = {
      PORTT: '8000', POSTER_APi: '1', port: '1', PORT: '8000', PATH: '/usr/bin', HOME: '/root', LANG: 'C.UTF-8',
      NODE_OPTIONS: '--enable-source-maps', npm_config_cache: '/tmp', npm_lifecycle_event: 'start', DATABASE_URL: 'x',
    };
    assert.deepEqual(settingWarnings({ files: [], env, config: QUIET, settings: SETTINGS }), [
      'warning: the environment variable PORTT is not a setting; did you mean PORT?',
      'warning: the environment variable POSTER_APi is not a setting; did you mean POSTER_API?',
      'warning: the environment variable port is not a setting; did you mean PORT?',
    ]);
  });

  it('says CORS_ORIGINS does nothing without POSTER_API=1, and nothing with it', () => {
    const cors = { kind: 'listed', origins: ['https://app.example.com'] } as const;
    assert.deepEqual(settingWarnings({ files: [], env: {}, config: { corsOrigins: cors, posterApi: false }, settings: SETTINGS }), [
      'warning: CORS_ORIGINS is set and POSTER_API is off: CORS_ORIGINS is for the poster API only, so it does nothing',
    ]);
    assert.deepEqual(settingWarnings({ files: [], env: {}, config: { corsOrigins: { kind: 'any' }, posterApi: false }, settings: SETTINGS }).length, 1, '*');
    assert.deepEqual(settingWarnings({ files: [], env: {}, config: { corsOrigins: cors, posterApi: true }, settings: SETTINGS }), [], 'with the poster API');
  });
});

describe('readSettingWarnings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'typos-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the env files the config was read from, and never shows a value', () => {
    writeFileSync(join(dir, '.env'), 'PORT=8000\nAPP_SECRET hunter2-secret\nAPP_SECRETT=hunter3-secret\n');
    writeFileSync(join(dir, '.env.local'), 'CORS_ORIGINS=https://app.example.com\n');
    const env = { WORKER: '4' };
    const lines = readSettingWarnings(loadConfig({ dir, env }), { dir, env });
    assert.deepEqual(lines, [
      'warning: .env line 2 is not NAME=value, so it does nothing',
      'warning: .env line 3: APP_SECRETT is not a setting, so it does nothing; did you mean APP_SECRET?',
      'warning: the environment variable WORKER is not a setting; did you mean WORKERS?',
      'warning: CORS_ORIGINS is set and POSTER_API is off: CORS_ORIGINS is for the poster API only, so it does nothing',
    ]);
    assert.ok(!lines.join('\n').includes('hunter'), 'no value shown');
  });
});

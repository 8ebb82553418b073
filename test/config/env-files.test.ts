/**
 * Env files read line by line: which names each sets on which line, and which lines set
 * nothing, told the way node:util's parseEnv (what loads the values) reads them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { openEnvFiles, readEnvFiles, scanEnvLines } from '../../src/config/env-files.js';

/** The names scanEnvLines finds, as parseEnv's keys are (unordered). */
const namesOf = (text: string) => scanEnvLines(text).entries.map((entry) => entry.name).sort();
/** The keys parseEnv sets that are variable names. */
const parsedNames = (text: string) => Object.keys(parseEnv(text)).filter((key) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)).sort();

describe('scanEnvLines', () => {
  it('gives each NAME=value its line, skipping blank lines and comments', () => {
    const text = 'PORT=8000\n\n# a comment\n   # an indented comment\nHOST = 0.0.0.0\n\texport LOG_DIR=logs\nAPP_ENV=prod # the rest\n';
    assert.deepEqual(scanEnvLines(text), {
      entries: [{ name: 'PORT', line: 1 }, { name: 'HOST', line: 5 }, { name: 'LOG_DIR', line: 6 }, { name: 'APP_ENV', line: 7 }],
      notSettings: [],
    });
  });

  it('names the lines that are not NAME=value: no "=", no name, a name with a space', () => {
    const text = 'PORT 8000\n=8000\nMY PORT=8000\nPORT=8001\njust some words\n';
    assert.deepEqual(scanEnvLines(text), { entries: [{ name: 'PORT', line: 4 }], notSettings: [1, 2, 3, 5] });
  });

  it('names a line whose name starts with a byte-order mark, which parseEnv keeps in the name', () => {
    const text = '\uFEFFPORT=8000\nHOST=::\n';
    assert.deepEqual(scanEnvLines(text), { entries: [{ name: 'HOST', line: 2 }], notSettings: [1] });
    assert.deepEqual(Object.keys(parseEnv(text)).sort(), ['HOST', '\uFEFFPORT'], 'parseEnv sets no PORT');
  });

  it('counts the lines of a quoted value that spans lines as its entry, in every kind of quote', () => {
    const text = 'A="first\nsecond = 2\nthird"\nB=\'x\nnot a setting\'\nC=`y\nz`\nD=4\n';
    assert.deepEqual(scanEnvLines(text), {
      entries: [{ name: 'A', line: 1 }, { name: 'B', line: 4 }, { name: 'C', line: 6 }, { name: 'D', line: 8 }],
      notSettings: [],
    });
  });

  it('reads an unclosed quote as a one-line value, as parseEnv does', () => {
    const text = 'A="unclosed\nB=2\nno setting here\n';
    assert.deepEqual(scanEnvLines(text), { entries: [{ name: 'A', line: 1 }, { name: 'B', line: 2 }], notSettings: [3] });
    assert.deepEqual(parsedNames(text), ['A', 'B']);
  });

  it('counts lines of a CRLF file as its lines', () => {
    assert.deepEqual(scanEnvLines('A=1\r\noops\r\nB=2\r\n'), { entries: [{ name: 'A', line: 1 }, { name: 'B', line: 3 }], notSettings: [2] });
  });

  // parseEnv decides what is set; the scan must find the same names, or a warning would name
  // a line that does set something (or miss one that sets nothing).
  const AGREEMENT_CASES: Readonly<Record<string, string>> = {
    'plain lines': 'A=1\nB = 2\n  C=3\nexport D=4\nexport   E = 5\n',
    'comments and blanks': '# x\n\n   \n\t# y\nA=1 # z\n',
    'quotes on one line': 'A="1" trailing\nB=\'2\'\nC=`3`\nD="a # b"\n',
    'quotes over lines': 'A="x\ny"\nB=\'p\nq\nr\'\nC=1\n',
    'an unclosed quote': 'A="x\nB=2\n',
    'empty values': 'A=\nB=""\nC=\n',
    'bad lines among good ones': 'A=1\nwords\n=2\nB=3\n',
  };
  for (const [name, text] of Object.entries(AGREEMENT_CASES)) {
    it(`finds the names parseEnv sets: ${name}`, () => {
      assert.deepEqual(namesOf(text), parsedNames(text), `${name}: ${JSON.stringify(text)}`);
    });
  }
});

describe('openEnvFiles', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'env-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the files that exist, in the order they are layered, each with its lines', () => {
    writeFileSync(join(dir, '.env'), 'PORT=1000\nAPP_ENV=prod\n');
    writeFileSync(join(dir, '.env.local'), 'oops\nPORT=1001\n');
    writeFileSync(join(dir, '.env.prod.local'), 'PORT=1003\n');
    writeFileSync(join(dir, '.env.dev'), 'PORT=2000\n');
    const files = openEnvFiles(dir, {});
    assert.deepEqual(files.map((file) => file.name), ['.env', '.env.local', '.env.prod.local'], 'APP_ENV=prod from .env chooses the files');
    assert.deepEqual(files[1], { name: '.env.local', vars: { PORT: '1001' }, entries: [{ name: 'PORT', line: 2 }], notSettings: [1] });
  });

  it('leaves out .env.local in the test environment, as readEnvFiles does', () => {
    writeFileSync(join(dir, '.env'), 'PORT=1000\n');
    writeFileSync(join(dir, '.env.local'), 'PORT=1001\n');
    writeFileSync(join(dir, '.env.test'), 'PORT=1002\n');
    assert.deepEqual(openEnvFiles(dir, { APP_ENV: 'test' }).map((file) => file.name), ['.env', '.env.test']);
    assert.equal(readEnvFiles(dir, { APP_ENV: 'test' }).PORT, '1002');
    assert.equal(readEnvFiles(dir, { APP_ENV: 'test', PORT: '5' }).PORT, '5', 'the environment wins');
  });
});

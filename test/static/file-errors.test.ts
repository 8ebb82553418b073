import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFileError } from '../../src/static/file-errors.js';

describe('classifyFileError', () => {
  const cases: [string | undefined, 'missing' | 'fault'][] = [
    ['ENOENT', 'missing'],
    ['ENOTDIR', 'missing'],
    ['ENAMETOOLONG', 'missing'],
    // A permission problem is the deployment's fault: a 500 in the log, never a quiet 404.
    ['EACCES', 'fault'],
    ['EPERM', 'fault'],
    ['ELOOP', 'fault'],
    ['EIO', 'fault'],
    ['EMFILE', 'fault'],
    [undefined, 'fault'],
  ];
  for (const [code, kind] of cases) {
    it(`classifies ${code ?? 'an error without a code'} as ${kind}`, () => assert.equal(classifyFileError(code), kind, String(code)));
  }
});

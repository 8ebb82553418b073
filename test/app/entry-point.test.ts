/**
 * The versions: `GET /` reports the API's (`1.0`, the service document's), byte for byte as
 * before; `problem-service --version` says both the package's and the API's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildEntryPoint, describeVersions, renderEntryPoint } from '../../src/app/entry-point.js';
import { parseConfig } from '../../src/config/config.js';
import { DEFAULT_SERVICE_DOCUMENT } from '../../src/store/index.js';

const PACKAGE_JSON = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
const { namespaces } = parseConfig({}, '/srv/app');
const doc = buildEntryPoint(DEFAULT_SERVICE_DOCUMENT, namespaces, 'http://127.0.0.1:8000');

describe('the entry point', () => {
  it('reports the API version as JSON, the document unchanged', () => {
    assert.equal(
      renderEntryPoint(doc, 'json').body,
      '{"name":"problem-service","version":"1.0","links":{"doc":"http://127.0.0.1:8000/doc/","problem":"http://127.0.0.1:8000/problem/",'
        + '"schema":"http://127.0.0.1:8000/schema/","service":"http://127.0.0.1:8000/api/","static":"http://127.0.0.1:8000/static/"}}',
    );
  });

  it('says on its page that the version is the API\'s', () => {
    assert.match(renderEntryPoint(doc, 'html').body, /<h1>problem-service<\/h1><p>Version 1\.0 of the API<\/p>/);
  });
});

describe('describeVersions', () => {
  it('says the package\'s version and the API\'s, each named', () => {
    const { version } = JSON.parse(PACKAGE_JSON) as { version: string };
    assert.equal(describeVersions(PACKAGE_JSON), `problem-service ${version} (API version 1.0, as GET / reports it)`);
  });

  it('takes the API version GET / reports from the service document', () => {
    assert.equal(describeVersions('{"name":"problem-service","version":"2.3.4"}', '1.1'), 'problem-service 2.3.4 (API version 1.1, as GET / reports it)');
  });
});

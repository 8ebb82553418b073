/**
 * The OpenAPI document a running service serves, checked by others' code: valid OpenAPI 3.1 for
 * an OpenAPI validator (bench/'s @readme/openapi-parser: `npm ci --prefix bench`), each of its
 * schemas valid JSON Schema 2020-12, and the service's real answers valid against the schemas
 * the document gives for them (Debian's python3-jsonschema). Fails, never skips, without either.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { issueToken, loadKeyPair, writeKeyPair } from '../../src/jwt/index.js';
import { ROOT } from '../helpers/checkout.js';
import { send } from '../helpers/http.js';
import { runProgram } from '../helpers/programs.js';
import { startTestService } from '../helpers/service.js';

const root = mkdtempSync(join(tmpdir(), 'openapi-e2e-'));
after(() => rmSync(root, { recursive: true, force: true }));
const PASS = 'openapi e2e passphrase';
const keyPaths = { secretKeyPath: join(root, 'jwt', 'private.pem'), publicKeyPath: join(root, 'jwt', 'public.pem') };
writeKeyPair(keyPaths, PASS, false);
const { privateKey } = loadKeyPair(keyPaths, PASS);

/** Debian's interpreter, which sees Debian's python3-jsonschema. */
const PYTHON = '/usr/bin/python3';

/** The validator's `validate`, from bench/'s modules; a clear failure when they are not installed. */
async function loadOpenApiValidator(): Promise<(doc: unknown) => Promise<{ valid: boolean; errors?: { message: string }[]; warnings: { message: string }[] }>> {
  let entry: string;
  try {
    entry = createRequire(join(ROOT, 'bench', 'package.json')).resolve('@readme/openapi-parser');
  } catch (err) {
    throw new Error(`the OpenAPI validator @readme/openapi-parser is not installed: run npm ci --prefix bench (${(err as Error).message})`);
  }
  return ((await import(pathToFileURL(entry).href)) as { validate: never }).validate;
}

/**
 * Checks each component schema against the 2020-12 meta-schema, then validates each answer's
 * body against the schema the document gives its status and media type, `$ref`s resolved in
 * the document. Prints one line per answer: "ok" or the first error.
 */
const CHECK_ANSWERS = `
import json, sys
from jsonschema import Draft202012Validator, RefResolver
data = json.load(sys.stdin)
doc = data["document"]
for name, schema in doc["components"]["schemas"].items():
    Draft202012Validator.check_schema(schema)
resolver = RefResolver(base_uri="", referrer=doc)
for answer in data["answers"]:
    response = doc["paths"]["/posters"][answer["method"]]["responses"][str(answer["status"])]
    schema = response["content"][answer["type"]]["schema"]
    errors = sorted(Draft202012Validator(schema, resolver=resolver).iter_errors(answer["body"]), key=str)
    print("ok" if not errors else errors[0].message)
`;

describe('the OpenAPI document of a running service', async () => {
  const api = await startTestService({
    POSTER_API: '1', PUBLIC_DIR: join(root, 'public'), POSTER_RATE_LIMIT: '2',
    JWT_SECRET_KEY: keyPaths.secretKeyPath, JWT_PUBLIC_KEY: keyPaths.publicKeyPath, JWT_PASSPHRASE: PASS,
  });
  let text = '';
  before(async () => {
    const res = await send(api.url, 'GET', '/schema/openapi.json');
    assert.equal(res.status, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/vnd\.oai\.openapi\+json/);
    text = res.body;
  });

  it('is valid OpenAPI 3.1 for @readme/openapi-parser, without a warning', async () => {
    const validate = await loadOpenApiValidator();
    const result = await validate(JSON.parse(text));
    assert.deepEqual(result.errors?.map((e) => e.message) ?? [], [], 'errors');
    assert.equal(result.valid, true);
    assert.deepEqual(result.warnings.map((w) => w.message), [], 'warnings');
  });

  it('gives schemas that hold the service\'s real answers (python3-jsonschema, 2020-12)', async () => {
    const token = async (subject: string) => `Bearer ${await issueToken(privateKey, subject, 600, Date.now())}`;
    const post = async (headers: Record<string, string>, body: string) => send(api.url, 'POST', '/api/posters', headers, body);
    const json = { 'content-type': 'application/json' };
    const answers = [
      await post({ ...json, authorization: await token('made') }, JSON.stringify({ title: 'Año Nuevo', subtitle: 'en la azotea' })),
      await post(json, '{}'),
      await post({ 'content-type': 'text/plain', authorization: await token('text') }, 'title'),
      await post({ ...json, authorization: await token('large') }, JSON.stringify({ title: 'x', body: 'y'.repeat(70_000) })),
      await post({ ...json, authorization: await token('broken') }, '{"title": '),
      await post({ ...json, authorization: await token('spec') }, JSON.stringify({ title: '', shapes: [{ kind: 'star' }], quality: 0 })),
      await post({ ...json, authorization: await token('spec') }, '{}'),
      await post({ ...json, authorization: await token('spec') }, '{}'),
    ];
    assert.deepEqual(answers.map((a) => a.status), [201, 401, 415, 413, 400, 422, 422, 429]);
    const input = {
      document: JSON.parse(text),
      answers: answers.map((a) => ({ method: 'post', status: a.status, type: a.headers['content-type'], body: JSON.parse(a.body) })),
    };
    const result = await runProgram(PYTHON, ['-c', CHECK_ANSWERS], JSON.stringify(input));
    assert.equal(result.code, 0, result.stderr);
    const verdicts = result.stdout.toString('utf8').trim().split('\n');
    assert.deepEqual(verdicts, answers.map(() => 'ok'), answers.map((a, i) => `${a.status}: ${verdicts[i]}`).join('\n'));
  });
});

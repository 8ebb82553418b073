import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runProgram } from '../helpers/programs.js';
import { startTestService } from '../helpers/service.js';

const service = await startTestService();

/** curl with the path sent as written (no dot-segment removal), headers and body on stdout. */
async function curl(args: string[]): Promise<{ status: number; head: string; body: string }> {
  const result = await runProgram('curl', ['--silent', '--show-error', '--path-as-is', '--include', ...args]);
  assert.equal(result.code, 0, result.stderr);
  const text = result.stdout.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  return { status: Number(text.slice(9, 12)), head: text.slice(0, split), body: text.slice(split + 4) };
}

describe('a real client (curl)', () => {
  it('gets the entry point as JSON', async () => {
    const res = await curl(['-H', 'Accept: application/json', `${service.url}/`]);
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).name, 'problem-service');
  });

  it('gets HEAD / with Content-Length and no body', async () => {
    const res = await curl(['--head', `${service.url}/`]);
    assert.equal(res.status, 200);
    assert.match(res.head, /\r\ncontent-length: \d+/i);
    assert.equal(res.body, '');
  });

  it('sees dot segments it sent verbatim in the 404 message', async () => {
    const res = await curl(['-H', 'Accept: application/json', `${service.url}/static/../../etc/passwd`]);
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body).detail, 'No route found for "GET /static/../../etc/passwd"');
  });

  it('gets 405 with Allow for DELETE /', async () => {
    const res = await curl(['-X', 'DELETE', '-H', 'Accept: application/json', `${service.url}/`]);
    assert.equal(res.status, 405);
    assert.match(res.head, /\r\nallow: OPTIONS, GET, HEAD/i);
  });

  it('tunnels a POST form with X-HTTP-Method', async () => {
    const res = await curl(['-X', 'POST', '-H', 'X-HTTP-Method: PUT', '-H', 'Accept: application/json', '--data', 'a=1', `${service.url}/x`]);
    assert.equal(res.status, 404);
    assert.equal(JSON.parse(res.body).detail, 'No route found for "PUT /x"');
  });
});

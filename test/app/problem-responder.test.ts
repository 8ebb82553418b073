/**
 * What the problem boundary hands to operators (the observer, stderr) when a client sent a
 * secret: masked there, echoed as sent in the answer (docs/http.md, "Routing and errors").
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { createApp, type AppObserver } from '../../src/app/app.js';
import { InvalidPosterSpec } from '../../src/poster/api.js';
import type { ProblemDocument } from '../../src/core/problem.js';
import { problemOf, send } from '../helpers/http.js';
import { createMemoryLogger, testConfig } from '../helpers/service.js';

const SECRET = 'br0ker-pass-w0rd';

/** An observer that keeps the problem documents it is told, and can fail when told one. */
function recordingObserver(failOnProblem: boolean): AppObserver & { readonly problems: ProblemDocument[] } {
  const problems: ProblemDocument[] = [];
  return {
    problems,
    routes: [],
    began() {},
    routed() {},
    logged() {},
    problem(_ctx, doc) {
      if (failOnProblem) throw new Error('the observer failed');
      problems.push(doc);
    },
    pageLinks: () => ({ profile: undefined, source: undefined, mapStack: (stack) => stack }),
  };
}

/** An app whose `/spec` answers a 422 naming the member the client sent, on port 0. */
async function startApp(observer: AppObserver): Promise<string> {
  const config = testConfig({ BROKER_PASSWORD: SECRET });
  const app = createApp({
    config,
    logger: createMemoryLogger(),
    observer,
    routes: [{
      id: 'test.spec',
      path: '/spec',
      methods: ['GET'],
      handler: (ctx) => {
        const member = decodeURIComponent(ctx.target.slice(ctx.target.indexOf('?') + 1));
        throw new InvalidPosterSpec([{ pointer: `/${member}`, reason: 'is not a known member' }], 'https://api.example.com/schema');
      },
    }],
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the problem responder', () => {
  it('answers a nested member as sent and tells the observer the document with it masked', async () => {
    const observer = recordingObserver(false);
    const url = await startApp(observer);
    const res = await send(url, 'GET', `/spec?${encodeURIComponent(SECRET)}`, { accept: 'application/json' });
    assert.equal(res.status, 422);
    assert.deepEqual(problemOf(res).errors, [{ pointer: `/${SECRET}`, reason: 'is not a known member' }]);
    assert.deepEqual(observer.problems.map((doc) => doc.errors), [[{ pointer: '/******', reason: 'is not a known member' }]]);
  });

  it('masks a secret in the path of the stderr line it writes when it cannot answer', async (t) => {
    const url = await startApp(recordingObserver(true));
    const written: string[] = [];
    const write = t.mock.method(process.stderr, 'write', (chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    await send(url, 'GET', `/nowhere/${SECRET}`).catch(() => undefined);
    write.mock.restore();
    assert.deepEqual(written, ['cannot answer GET /nowhere/******: Error: the observer failed\n']);
  });
});

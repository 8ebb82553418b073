import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import type { RequestContext } from '../../src/http/index.js';
import type { AccessRecord } from '../../src/log/index.js';
import { createOutcomeWatch, protocolOf } from '../../src/ops/request-outcome.js';

/** What protocolOf reads of a request: its version, and for h2 its stream. */
const requestOf = (major: number, minor: number, stream?: object) =>
  ({ httpVersionMajor: major, httpVersionMinor: minor, httpVersion: `${major}.${minor}`, stream, headers: {} }) as unknown as IncomingMessage;

describe('protocolOf', () => {
  it('says HTTP/1.1 and HTTP/1.0 for the HTTP/1 versions the app answers', () => {
    assert.equal(protocolOf(requestOf(1, 1)), 'HTTP/1.1');
    assert.equal(protocolOf(requestOf(1, 0)), 'HTTP/1.0');
  });

  it('says HTTP/2 for a stream of an h2 connection (node:http2 says 2.0)', () => {
    assert.equal(protocolOf(requestOf(2, 0, {})), 'HTTP/2');
  });

  it('writes another version as sent: HTTP/0.9, and an HTTP/2.0 request line on an HTTP/1 connection', () => {
    assert.equal(protocolOf(requestOf(0, 9)), 'HTTP/0.9');
    assert.equal(protocolOf(requestOf(2, 0)), 'HTTP/2.0');
    assert.equal(protocolOf(requestOf(1, 2)), 'HTTP/1.2');
  });
});

describe('createOutcomeWatch', () => {
  const context = {
    receivedAt: 1_000, requestId: 'r1', clientIp: '192.0.2.1', originalMethod: 'GET', method: 'GET', target: '/a', referer: undefined, attributes: {},
  } as unknown as RequestContext;

  it('records the protocol of the request when its answer ends', () => {
    const outcomes: AccessRecord[] = [];
    const watch = createOutcomeWatch([(outcome) => outcomes.push(outcome)], 0, () => 'unused');
    for (const req of [requestOf(1, 1), requestOf(1, 0), requestOf(2, 0, {})]) {
      const res = Object.assign(new EventEmitter(), { headersSent: true, statusCode: 200, writableFinished: true }) as unknown as ServerResponse;
      watch.watch(context, req, res);
      res.emit('close');
    }
    assert.deepEqual(outcomes.map((outcome) => outcome.protocol), ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2']);
  });

  it('records a parser refusal with no protocol: "-"', () => {
    const outcomes: AccessRecord[] = [];
    const watch = createOutcomeWatch([(outcome) => outcomes.push(outcome)], 3, () => 'refused-1');
    assert.equal(watch.refused({ peer: '::ffff:192.0.2.9', status: 400, receivedAt: 2_000 }), 'refused-1');
    assert.equal(outcomes.length, 1);
    assert.deepEqual(
      { method: outcomes[0]!.method, target: outcomes[0]!.target, protocol: outcomes[0]!.protocol, status: outcomes[0]!.status, clientIp: outcomes[0]!.clientIp },
      { method: '-', target: '-', protocol: '-', status: 400, clientIp: '192.0.2.9' },
    );
  });
});

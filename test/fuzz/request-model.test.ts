import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelRequests } from './request-model.js';

describe('the fuzz tier reads the requests of a case as a server would', () => {
  it('models pipelined requests, skipping each body by its Content-Length', () => {
    const text = 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nzzzzHEAD / HTTP/1.1\r\nHost: a\r\n\r\n';
    const model = modelRequests(text);
    assert.deepEqual(model.requests.map((r) => r.method), ['POST', 'HEAD']);
    assert.equal(model.end, 'open');
  });

  it('guesses methods past an unsure head without reading a body of letters into the next method', () => {
    const big = `HEAD / HTTP/1.1\r\nHost: a\r\nAccept: ${'a'.repeat(15_800)}\r\n\r\n`;
    const rest =
      'POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\nzzzzzz' +
      'HEAD /y HTTP/1.1\r\nHost: a\r\n\r\n' +
      'POST /z HTTP/1.1\r\nHost: a\r\nX-HTTP-Method: head\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nq\r\n0\r\n\r\n' +
      'GET / HTTP/1.1\r\nHost: a\r\n\r\n';
    const model = modelRequests(big + rest);
    assert.equal(model.end, 'unsure');
    assert.deepEqual(model.requests.map((r) => r.method), ['HEAD']);
    assert.deepEqual(model.methodsBeyond, ['POST', 'HEAD', 'POST', 'GET']);
    assert.deepEqual(model.routedBeyond, ['POST', 'HEAD', 'HEAD', 'GET']);
  });
});

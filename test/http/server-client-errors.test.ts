import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createThrottledLog, summaryLine } from '../../src/log/throttle.js';
import { sendRaw, statusOf } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

describe('requests the parser refuses', async () => {
  const service = await startTestService();
  const badLines = () => service.log.lines.filter((l) => l.channel === 'request' && l.message.startsWith('Bad request from'));

  it('answers a malformed header line with 400, closes, and logs one line without the raw bytes', async () => {
    service.log.clear();
    const raw = await sendRaw(service.url, 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    assert.equal(statusOf(raw), 400);
    assert.match(raw, /\r\nConnection: close\r\n/);
    assert.deepEqual(badLines().map((l) => `${l.level} ${l.message}`), [
      'ERROR Bad request from 127.0.0.1: HPE_INVALID_HEADER_TOKEN (Invalid header token)',
    ]);
  });

  it('answers an oversize header with 431 and logs it', async () => {
    service.log.clear();
    const raw = await sendRaw(service.url, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(statusOf(raw), 431);
    assert.equal(badLines().length, 1);
    assert.match(badLines()[0]!.message, /^Bad request from 127\.0\.0\.1: HPE_HEADER_OVERFLOW\b/);
    assert.ok(!badLines()[0]!.message.includes('aaaa'));
  });

  it('logs a flood of 200 bad requests in a few lines, with the count of the ones folded in', async () => {
    service.log.clear();
    // A reason of its own, so the windows of the tests above do not count.
    const bad = 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n';
    const answers = await Promise.all(Array.from({ length: 200 }, () => sendRaw(service.url, bad)));
    assert.ok(answers.every((raw) => statusOf(raw) === 400));
    assert.ok(badLines().length <= 2, `${badLines().length} lines`);
    await service.stop(); // a stop writes the pending summary
    const lines = badLines().map((l) => l.message);
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.match(lines[1]!, /^Bad request from 127\.0\.0\.1: HPE_INVALID_CONTENT_LENGTH \([^)]*\) \(and 198 more in the last second\)$/);
  });
});

describe('createThrottledLog', () => {
  it('writes the first line of a reason at once and one summary when its window ends', async () => {
    const written: string[] = [];
    const log = createThrottledLog((line) => written.push(line), 30);
    log.note('A', 'a1');
    log.note('A', 'a2');
    log.note('A', 'a3');
    log.note('B', 'b1');
    assert.deepEqual(written, ['a1', 'b1']);
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(written, ['a1', 'b1', 'a3 (and 1 more in the last second)']);
  });

  it('says nothing extra for a single folded line', () => {
    assert.equal(summaryLine('x', 1), 'x');
  });
});

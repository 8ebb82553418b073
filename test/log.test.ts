import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createStreamLogger, createTimestamper, escapeControl, formatLine, formatTimestamp } from '../src/log.js';

describe('formatTimestamp', () => {
  it('writes Madrid local time in winter (UTC+1)', () => {
    assert.equal(formatTimestamp(Date.UTC(2026, 0, 15, 23, 30, 5), 'Europe/Madrid'), '2026-01-16 00:30:05');
  });
  it('writes Madrid local time in summer (UTC+2)', () => {
    assert.equal(formatTimestamp(Date.UTC(2026, 6, 1, 21, 59, 59), 'Europe/Madrid'), '2026-07-01 23:59:59');
  });
  it('writes midnight as 00, not 24', () => {
    assert.equal(formatTimestamp(Date.UTC(2026, 6, 1, 22, 0, 0), 'Europe/Madrid'), '2026-07-02 00:00:00');
  });
});

describe('escapeControl', () => {
  it('escapes CR, LF and tab by name', () => assert.equal(escapeControl('a\r\nb\tc'), 'a\\r\\nb\\tc'));
  it('escapes ESC, NUL, DEL, C1 and line separators by code', () => {
    assert.equal(escapeControl('\u001b[31m\u0000\u007f\u0085\u2028'), '\\u001b[31m\\u0000\\u007f\\u0085\\u2028');
  });
  it('leaves printable text alone', () => assert.equal(escapeControl('Año "€" <b>'), 'Año "€" <b>'));
});

describe('formatLine', () => {
  it('writes one whole line', () => {
    assert.equal(
      formatLine('2026-11-22 03:00:00', 'request', 'ERROR', 'No route found for "GET /x\nforged"'),
      '2026-11-22 03:00:00 request.ERROR: No route found for "GET /x\\nforged"\n',
    );
  });
});

describe('createTimestamper', () => {
  it('gives the same text within a second and the next one after', () => {
    const stamp = createTimestamper('UTC');
    const t = Date.UTC(2026, 0, 1, 0, 0, 0);
    assert.equal(stamp(t + 10), '2026-01-01 00:00:00');
    assert.equal(stamp(t + 999), '2026-01-01 00:00:00');
    assert.equal(stamp(t + 1000), '2026-01-01 00:00:01');
  });
});

describe('createStreamLogger', () => {
  it('writes formatted lines with the injected clock', async () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const logger = createStreamLogger(stream, 'Europe/Madrid', () => Date.UTC(2026, 2, 29, 1, 0, 0));
    logger.log('app', 'ERROR', 'one');
    await logger.flush();
    assert.equal(chunks.join(''), '2026-03-29 03:00:00 app.ERROR: one\n');
  });
});

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createStreamLogger, createTimestamper, escapeControl, formatLine, formatTimestamp, MAX_LINE_BYTES } from '../../src/log/index.js';
import { MAX_LOGGED_REQUEST_ID_LENGTH } from '../../src/log/format.js';

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
  it('passes U+FFFD (an invalid byte decoded) through unescaped', () => {
    assert.equal(escapeControl('a\uFFFD\uFFFDb\u0080'), 'a\uFFFD\uFFFDb\\u0080');
  });
  // Its linear time is the fuzz tier's to measure (test/fuzz/parsers.fuzz.ts, escapeControl).
  it('escapes each of 64 KiB of control characters', () => {
    assert.equal(escapeControl('\u0080'.repeat(65_536)), '\\u0080'.repeat(65_536));
  });
});

describe('formatLine', () => {
  it('writes one whole line', () => {
    assert.equal(
      formatLine('2026-11-22 03:00:00', 'request', 'ERROR', 'No route found for "GET /x\nforged"'),
      '2026-11-22 03:00:00 request.ERROR: No route found for "GET /x\\nforged"\n',
    );
  });

  const TS = '2026-11-22 03:00:00';
  const HEAD = `${TS} request.ERROR: `; // 35 bytes

  it('keeps a line of exactly MAX_LINE_BYTES whole', () => {
    const message = 'a'.repeat(MAX_LINE_BYTES - HEAD.length - 1);
    const line = formatLine(TS, 'request', 'ERROR', message);
    assert.equal(line, `${HEAD}${message}\n`);
    assert.equal(Buffer.byteLength(line), 8192);
  });

  it('cuts a 100 KB message to an 8 KiB line ending in a marker with the bytes cut', () => {
    const line = formatLine(TS, 'request', 'ERROR', 'x'.repeat(100_000));
    // 35 (head) + 8135 kept + 21 (marker, "…" is 3 bytes) + 1 (newline) = 8192
    assert.equal(Buffer.byteLength(line), 8192);
    assert.ok(line.startsWith(`${HEAD}${'x'.repeat(8135)}…`), line.slice(0, 60));
    assert.equal(line.slice(HEAD.length + 8135), '… [91865 bytes cut]\n');
  });

  it('cuts a multi-byte message between characters, never inside one', () => {
    const line = formatLine(TS, 'request', 'ERROR', `a${'€😀'.repeat(5_000)}`);
    const bytes = Buffer.from(line);
    assert.ok(bytes.byteLength <= 8192, `${bytes.byteLength} bytes`);
    assert.equal(bytes.toString('utf8'), line, 'not valid UTF-8');
    assert.doesNotMatch(line, /\uFFFD/);
    const kept = line.slice(HEAD.length, line.indexOf('…'));
    assert.match(kept, /^a(€😀)*€?$/u);
    const cut = Number(/… \[(\d+) bytes cut\]\n$/.exec(line)?.[1]);
    assert.equal(Buffer.byteLength(kept) + cut, 1 + 5_000 * 7);
  });

  it('cuts escaped control characters between escapes, never inside one', () => {
    const line = formatLine(TS, 'request', 'ERROR', `GET /${'\u0080'.repeat(16_384)}`);
    // 8156 bytes of room less a 21-byte marker: "GET /" and 1355 whole escapes (8135 bytes),
    // 98,309 - 8135 = 90,174 escaped bytes cut.
    assert.equal(Buffer.byteLength(line), 8192);
    assert.ok(line === `${HEAD}GET /${'\\u0080'.repeat(1355)}… [90174 bytes cut]\n`, line.slice(-60));
  });

  it('cuts an escape whole when only part of it would fit', () => {
    const line = formatLine(TS, 'request', 'ERROR', `${'a'.repeat(8133)}\u0001${'b'.repeat(100)}`);
    // 8135 bytes fit before the marker: the 6-byte "\u0001" does not, so it goes whole.
    assert.ok(line === `${HEAD}${'a'.repeat(8133)}… [106 bytes cut]\n`, line.slice(-60));
  });
});

describe('formatLine with a request id', () => {
  const TS = '2026-11-22 03:00:00';
  const ID = '4f1c9a0b7e2d5c38a1b2c3d4e5f60718';
  const END = ` {"request_id":"${ID}"}\n`; // 51 bytes

  it('ends the observed line with the id as JSON context, as Monolog writes a record\'s context', () => {
    assert.equal(
      formatLine(TS, 'request', 'ERROR', 'No route found for "GET /x"', ID),
      `2026-11-22 03:00:00 request.ERROR: No route found for "GET /x" {"request_id":"${ID}"}\n`,
    );
  });

  it('leaves a line logged for no request as it was', () => {
    assert.equal(formatLine(TS, 'app', 'INFO', 'SIGHUP', undefined), '2026-11-22 03:00:00 app.INFO: SIGHUP\n');
  });

  it('keeps a line of exactly MAX_LINE_BYTES whole, its id included', () => {
    const head = `${TS} request.ERROR: `;
    const message = 'a'.repeat(MAX_LINE_BYTES - head.length - END.length);
    const line = formatLine(TS, 'request', 'ERROR', message, ID);
    assert.equal(line, `${head}${message}${END}`);
    assert.equal(Buffer.byteLength(line), 8192);
  });

  it('cuts a long message before its marker and never the id that ends the line', () => {
    const line = formatLine(TS, 'request', 'ERROR', 'x'.repeat(100_000), ID);
    // 35 (head) + 8085 kept + 21 (marker, "…" is 3 bytes) + 51 (id and newline) = 8192
    assert.equal(Buffer.byteLength(line), 8192);
    assert.equal(line.slice(35 + 8085), `… [91915 bytes cut]${END}`);
  });

  it('writes an id no proxy could send as a JSON string, one line, cut to its first 128 code units', () => {
    const id = `a"b\\c\n\u0085\u2028${'x'.repeat(300)}`;
    const line = formatLine(TS, 'app', 'ERROR', 'm', id);
    assert.equal(line.indexOf('\n'), line.length - 1, 'one line');
    assert.doesNotMatch(line, /[\u0085\u2028]/);
    const context = line.slice(line.indexOf(' {'), -1);
    assert.deepEqual(JSON.parse(context), { request_id: id.slice(0, MAX_LOGGED_REQUEST_ID_LENGTH) });
  });

  it('writes an id of MAX_LOGGED_REQUEST_ID_LENGTH characters whole and cuts one a character longer', () => {
    const longest = 'a'.repeat(MAX_LOGGED_REQUEST_ID_LENGTH);
    assert.equal(formatLine(TS, 'app', 'ERROR', 'm', longest), `${TS} app.ERROR: m {"request_id":"${longest}"}\n`);
    assert.equal(formatLine(TS, 'app', 'ERROR', 'm', `${longest}b`), `${TS} app.ERROR: m {"request_id":"${longest}"}\n`);
  });

  it('writes a masked id as it is', () => {
    assert.equal(formatLine(TS, 'app', 'ERROR', 'm', 'lb-******.7'), `${TS} app.ERROR: m {"request_id":"lb-******.7"}\n`);
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

  it('ends a line with its request id with requestIds, and only then', async () => {
    const chunks: string[] = [];
    const loggerOf = (requestIds: boolean | undefined) => {
      const stream = new PassThrough();
      stream.on('data', (c: Buffer) => chunks.push(c.toString()));
      return createStreamLogger(stream, 'Europe/Madrid', () => Date.UTC(2026, 2, 29, 1, 0, 0), { requestIds });
    };
    const withIds = loggerOf(true);
    withIds.log('request', 'ERROR', 'one', 'abc');
    withIds.log('app', 'INFO', 'two');
    await withIds.flush();
    const without = loggerOf(undefined);
    without.log('request', 'ERROR', 'three', 'abc');
    await without.flush();
    assert.equal(chunks.join(''), [
      '2026-03-29 03:00:00 request.ERROR: one {"request_id":"abc"}\n',
      '2026-03-29 03:00:00 app.INFO: two\n',
      '2026-03-29 03:00:00 request.ERROR: three\n',
    ].join(''));
  });
});

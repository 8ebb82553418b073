import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAccessLine, formatMillis, shareRoom, VerbatimCheck, writeAccessLine, type AccessRecord, type TextMasker } from '../../src/log/access-format.js';
import { createIsoTimestamper, MAX_LINE_BYTES } from '../../src/log/format.js';
import { parseConfig } from '../../src/config/config.js';
import { createSecretMasker } from '../../src/config/secrets.js';

const madrid = () => createIsoTimestamper('Europe/Madrid');
const noMask: TextMasker = Object.assign((text: string) => text, { trigger: undefined });
/** A masker of one secret, as the service's says what it masks. */
const maskOf = (secret: string): TextMasker => Object.assign((text: string) => text.replaceAll(secret, '******'), { trigger: new RegExp(secret) });

const SAMPLE: AccessRecord = {
  time: Date.parse('2026-11-26T01:06:46.123Z'),
  requestId: '7f3a9c2e4b1d',
  clientIp: '203.0.113.7',
  method: 'POST',
  routedMethod: 'PUT',
  target: '/settings/theme?x=1',
  protocol: 'HTTP/1.1',
  status: 200,
  bytes: 512,
  durationMs: 1.23456,
  userAgent: 'curl/8.5.0',
  referer: undefined,
  subject: 'alice',
  worker: 2,
  completed: true,
};
/** A text as Node gives a header holding its UTF-8: a character per byte. */
const asReceived = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const line = (changes: Partial<AccessRecord>, mask = noMask) => formatAccessLine({ ...SAMPLE, ...changes }, madrid(), mask);
const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('formatAccessLine', () => {
  it('writes one JSON object with every key, in order, absent texts null, and a newline', () => {
    assert.equal(
      line({}),
      '{"time":"2026-11-26T02:06:46.123+01:00","request_id":"7f3a9c2e4b1d","client_ip":"203.0.113.7","method":"POST",' +
        '"routed_method":"PUT","target":"/settings/theme?x=1","protocol":"HTTP/1.1","status":200,"bytes":512,"duration_ms":1.235,' +
        '"user_agent":"curl/8.5.0","referer":null,"subject":"alice","worker":2,"completed":true}\n',
    );
  });

  it('writes a request the parser refused: status 0, no method, no protocol, nothing known but the peer', () => {
    const text = line({
      method: '-', routedMethod: '-', target: '-', protocol: '-', status: 0, bytes: 0, durationMs: 0, userAgent: undefined, subject: undefined, completed: false,
    });
    assert.equal(
      text,
      '{"time":"2026-11-26T02:06:46.123+01:00","request_id":"7f3a9c2e4b1d","client_ip":"203.0.113.7","method":"-",' +
        '"routed_method":"-","target":"-","protocol":"-","status":0,"bytes":0,"duration_ms":0,' +
        '"user_agent":null,"referer":null,"subject":null,"worker":2,"completed":false}\n',
    );
  });

  it('writes the protocol right after the target: HTTP/1.0, HTTP/1.1, HTTP/2', () => {
    const around = (protocol: AccessRecord['protocol']) => `"target":"/settings/theme?x=1","protocol":"${protocol}","status":200,`;
    assert.ok(line({ protocol: 'HTTP/1.0' }).includes(around('HTTP/1.0')), 'HTTP/1.0');
    assert.ok(line({ protocol: 'HTTP/1.1' }).includes(around('HTTP/1.1')), 'HTTP/1.1');
    assert.ok(line({ protocol: 'HTTP/2' }).includes(around('HTTP/2')), 'HTTP/2');
    assert.equal(parsed(line({ protocol: 'HTTP/0.9' })).protocol, 'HTTP/0.9');
  });

  it('writes the protocol as it is, whichever way the line goes: a secret in the protocol is not one the client sent', () => {
    // The masker's trigger finds `HTTP` in the protocol, yet only the client's texts are masked.
    const mask = maskOf('HTTP');
    assert.equal(parsed(line({ protocol: 'HTTP/2' }, mask)).protocol, 'HTTP/2', 'the short way');
    const masked = parsed(line({ protocol: 'HTTP/2', target: '/a/HTTP' }, mask));
    assert.deepEqual([masked.protocol, masked.target], ['HTTP/2', '/a/******'], 'the long way');
  });

  it('keeps a line of the widest protocol and numbers within MAX_LINE_BYTES to the byte, and cuts one byte more', () => {
    // Numbers JSON writes in 24 characters, the most any takes; formatMillis writes the duration so.
    const widest: number = -2.2250738585072014e-308;
    const durationMs = -1.2345678901234567e300;
    assert.equal(formatMillis(durationMs).length, 24);
    const frame: Partial<AccessRecord> = {
      requestId: '', clientIp: '', method: '', routedMethod: '', protocol: `HTTP/${widest}.${widest}`,
      status: widest, bytes: widest, durationMs, worker: widest, userAgent: undefined, subject: undefined, completed: false,
    };
    const room = MAX_LINE_BYTES - line({ ...frame, target: '' }).length;
    const full = line({ ...frame, target: `/${'a'.repeat(room - 1)}` });
    assert.equal(full.length, MAX_LINE_BYTES);
    assert.equal(parsed(full).target, `/${'a'.repeat(room - 1)}`, 'whole');
    const over = line({ ...frame, target: `/${'a'.repeat(room)}` });
    assert.ok(Buffer.byteLength(over) <= MAX_LINE_BYTES, `${Buffer.byteLength(over)} bytes`);
    assert.match(parsed(over).target as string, /^\/a+… \[\d+ bytes cut\]$/);
    assert.equal(parsed(over).protocol, `HTTP/${widest}.${widest}`);
  });

  it('writes the Madrid offset across the October DST change (+02:00, then +01:00 from 03:00 back to 02:00)', () => {
    const stamp = madrid();
    assert.equal(stamp(Date.parse('2026-10-25T00:59:59.999Z')), '2026-10-25T02:59:59.999+02:00');
    assert.equal(stamp(Date.parse('2026-10-25T01:00:00.000Z')), '2026-10-25T02:00:00.000+01:00');
    assert.equal(stamp(Date.parse('2026-10-25T01:00:00.007Z')), '2026-10-25T02:00:00.007+01:00');
  });

  it('writes the Madrid offset across the March DST change (01:59:59 +01:00, then 03:00 +02:00)', () => {
    const stamp = madrid();
    assert.equal(stamp(Date.parse('2026-03-29T00:59:59.050Z')), '2026-03-29T01:59:59.050+01:00');
    assert.equal(stamp(Date.parse('2026-03-29T01:00:00.000Z')), '2026-03-29T03:00:00.000+02:00');
  });

  it('writes the offset of other zones, negative and half-hour ones, and cuts a fractional instant to its millisecond', () => {
    assert.equal(createIsoTimestamper('America/St_Johns')(Date.parse('2026-01-15T12:00:00.5Z') + 0.9), '2026-01-15T08:30:00.500-03:30');
    assert.equal(createIsoTimestamper('UTC')(Date.parse('2026-01-15T12:00:00.042Z')), '2026-01-15T12:00:00.042+00:00');
  });

  it('keeps a line with a 1 MiB user agent within MAX_LINE_BYTES, valid JSON, the cut marked', () => {
    const text = line({ userAgent: 'A'.repeat(1 << 20) });
    assert.ok(Buffer.byteLength(text) <= MAX_LINE_BYTES, `${Buffer.byteLength(text)} bytes`);
    assert.ok(text.endsWith('}\n') && !text.slice(0, -1).includes('\n'));
    const value = parsed(text);
    assert.match(value.user_agent as string, /^A+… \[\d+ bytes cut\]$/);
    assert.equal(value.target, '/settings/theme?x=1', 'the short texts are whole');
    assert.equal(value.subject, 'alice');
  });

  it('keeps a line of long texts that all escape to 6 bytes within MAX_LINE_BYTES, the target getting the largest share', () => {
    const nasty = '\u0001\u2028\ud800\u0085'.repeat(50_000);
    const text = line({ target: `/${nasty}`, userAgent: asReceived(nasty), referer: nasty, requestId: nasty, subject: nasty });
    const bytes = Buffer.byteLength(text);
    assert.ok(bytes <= MAX_LINE_BYTES && bytes > MAX_LINE_BYTES - 64, `${bytes} bytes`);
    const value = parsed(text);
    const target = (value.target as string).length;
    for (const key of ['user_agent', 'referer', 'request_id', 'subject']) {
      assert.match(value[key] as string, / \[\d+ bytes cut\]$/, key);
      assert.ok(target > 3 * (value[key] as string).length, `target ${target} against ${key} ${(value[key] as string).length}`);
    }
  });

  it('says how many written bytes it cut, and never cuts a surrogate pair in half', () => {
    // Each 😀 is a pair, 4 bytes written: the cut falls between two of them.
    const emoji = '😀'.repeat(5_000);
    const value = parsed(line({ userAgent: asReceived(emoji) })).user_agent as string;
    const kept = value.slice(0, value.indexOf('…'));
    assert.equal(kept, '😀'.repeat(kept.length / 2));
    assert.equal(value.slice(kept.length), `… [${20_000 - Buffer.byteLength(kept)} bytes cut]`);
  });

  it('escapes control characters, DEL, C1, U+2028 and U+2029, so the line is one line and parses back the same', () => {
    const target = '/a\nb\rc\td\u0000e\u001bf\u007fg\u0085h\u009bi\u2028j\u2029k"l\\m';
    const text = line({ target, userAgent: asReceived('ua\u2028') });
    assert.equal(text.indexOf('\n'), text.length - 1);
    for (const raw of ['\r', '\u0000', '\u001b', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029']) {
      assert.ok(!text.includes(raw), `raw U+${raw.charCodeAt(0).toString(16).padStart(4, '0')} in the line`);
    }
    assert.ok(text.includes('"target":"/a\\nb\\rc\\td\\u0000e\\u001bf\\u007fg\\u0085h\\u009bi\\u2028j\\u2029k\\"l\\\\m"'));
    assert.equal(parsed(text).target, target);
    assert.equal(parsed(text).user_agent, 'ua\u2028');
  });

  it('writes lone surrogates as \\uXXXX escapes: valid UTF-8, the same string for JSON.parse', () => {
    // A token's subject may hold any string; header values come as bytes and never do.
    const subject = 'x\ud800y\udfffz😀';
    const text = line({ subject });
    assert.ok(text.includes('"subject":"x\\ud800y\\udfffz😀"'));
    const bytes = Buffer.from(text, 'utf8');
    assert.equal(new TextDecoder('utf-8', { fatal: true }).decode(bytes), text, 'valid UTF-8');
    assert.ok(!bytes.includes(Buffer.from([0xef, 0xbf, 0xbd])), 'no U+FFFD replacement');
    assert.equal(parsed(text).subject, subject);
  });

  it('reads the user agent, received a character per byte, as UTF-8: its ü as ü, a stray byte as U+FFFD', () => {
    assert.equal(parsed(line({ userAgent: asReceived('Mozilla/5.0 (Linux; ü) Größe/1.0') })).user_agent, 'Mozilla/5.0 (Linux; ü) Größe/1.0');
    assert.equal(parsed(line({ userAgent: 'agent/\u00ff1' })).user_agent, 'agent/\ufffd1');
    assert.equal(parsed(line({ userAgent: 'curl/8.5.0' })).user_agent, 'curl/8.5.0');
  });

  it('masks every client text: request id, method, routed method, target, user agent, referer, subject', () => {
    const secret = 's3cret-token-value';
    const mask = maskOf(secret);
    const text = line(
      {
        requestId: `id-${secret}`, method: `M${secret}`, routedMethod: `R${secret}`, target: `/x?key=${secret}`,
        userAgent: `ua ${secret}`, referer: `https://a.example/?k=${secret}`, subject: `sub-${secret}`,
      },
      mask,
    );
    assert.ok(!text.includes(secret), text);
    const value = parsed(text);
    assert.deepEqual(
      [value.request_id, value.method, value.routed_method, value.target, value.user_agent, value.referer, value.subject],
      ['id-******', 'M******', 'R******', '/x?key=******', 'ua ******', 'https://a.example/?k=******', 'sub-******'],
    );
  });

  it('masks with the real masker, a text holding a line feed (a token\'s subject may) included', () => {
    const secret = 'bench-secret-4f5e6d7c';
    const mask = createSecretMasker(parseConfig({ APP_ENV: 'test', APP_SECRET: secret }, process.cwd()));
    const value = parsed(line({ target: `/a/${encodeURIComponent(secret)}`, userAgent: `curl ${secret}`, subject: `two\nlines ${secret}` }, mask));
    assert.deepEqual([value.target, value.user_agent, value.subject], ['/a/******', 'curl ******', 'two\nlines ******']);
    // Texts are masked apart: the end of one and the start of the next make no secret.
    const half = secret.length / 2;
    const apart = parsed(line({ target: `/${secret.slice(0, half)}`, userAgent: secret.slice(half) }, mask));
    assert.deepEqual([apart.target, apart.user_agent], [`/${secret.slice(0, half)}`, secret.slice(half)]);
  });

  it('masks before it cuts: a secret at the cut never shows a start of itself', () => {
    const secret = 'SECRET-'.repeat(3);
    const userAgent = 'a'.repeat(7_000) + secret + 'b'.repeat(20_000);
    const text = line({ userAgent }, maskOf(secret));
    assert.ok(!text.includes('SECRET'), 'no part of the secret');
  });

  it('writes numbers JSON can hold: NaN and Infinity as null', () => {
    const value = parsed(line({ bytes: Number.NaN, durationMs: Number.POSITIVE_INFINITY }));
    assert.equal(value.bytes, null);
    assert.equal(value.duration_ms, null);
  });

  it('writes an arrival time no Date can hold as "-" rather than throwing', () => {
    assert.equal(parsed(line({ time: Number.NaN })).time, '-');
  });
});

describe('writeAccessLine', () => {
  it('gives the line formatAccessLine writes and its size in UTF-8 bytes, whichever way the line was written', () => {
    const mask = createSecretMasker(parseConfig({ APP_ENV: 'test', APP_SECRET: 'bench-secret-4f5e6d7c' }, process.cwd()));
    const records: Partial<AccessRecord>[] = [
      {},
      { userAgent: 'Mozilla/5.0 (compatible; Señor/1.0)' },
      { target: '/a"b\\c', referer: 'https://a.example/\u2028' },
      { target: '/x?key=bench-secret-4f5e6d7c' },
      { target: '/x?key=bench%2Dsecret-4f5e6d7c' },
      { target: `/${'é'.repeat(MAX_LINE_BYTES)}` },
      { target: `/${'a'.repeat(MAX_LINE_BYTES)}` },
    ];
    for (const changes of records) {
      const written = writeAccessLine({ ...SAMPLE, ...changes }, madrid(), mask, new VerbatimCheck(mask));
      assert.equal(written.text, line(changes, mask));
      assert.equal(written.bytes, Buffer.byteLength(written.text), written.text.slice(0, 120));
    }
  });

  it('writes every line the same with one check for the whole log as with a fresh one, user agents seen before or not', () => {
    const secret = 'bench-secret-4f5e6d7c';
    const mask = createSecretMasker(parseConfig({ APP_ENV: 'test', APP_SECRET: secret }, process.cwd()));
    const check = new VerbatimCheck(mask);
    const agents = ['curl/8.5.0', `curl ${secret}`, 'Mozilla/5.0 (compatible; Señor/1.0)', 'a"b', 'x'.repeat(600)];
    for (let i = 0; i < 3_000; i++) {
      // Known agents again and again, and more distinct ones than the check remembers.
      const userAgent = i % 3 === 0 ? `agent/${i}` : agents[i % agents.length]!;
      const written = writeAccessLine({ ...SAMPLE, userAgent }, madrid(), mask, check);
      assert.equal(written.text, line({ userAgent }, mask), userAgent);
    }
  });

  it('masks what each text holds, not what two texts or the address spell together', () => {
    // A find in the address (which is not masked) or a `+` (which a secret with a space may be
    // encoded with) sends the line the long way, which writes it the same.
    for (const secret of ['POST PUT /settings', '203.0.113.7', '+01:00 7f3a9c2e4b1d']) {
      const mask = createSecretMasker(parseConfig({ APP_ENV: 'test', APP_SECRET: secret }, process.cwd()));
      assert.equal(writeAccessLine(SAMPLE, madrid(), mask, new VerbatimCheck(mask)).text, line({}), secret);
    }
  });
});

describe('formatMillis', () => {
  it('writes 3 decimals at most, as JSON writes the rounded number', () => {
    for (const [ms, text] of [
      [1.23456, '1.235'], [2, '2'], [0.5, '0.5'], [12.1, '12.1'], [0.0004, '0'], [0.05, '0.05'], [3.007, '3.007'],
      [1234567.8909, '1234567.891'], [-0.0001, '0'], [-1.5, '-1.5'],
    ] as const) {
      assert.equal(formatMillis(ms), text, `${ms}`);
      assert.equal(Number(formatMillis(ms)), Math.round(ms * 1000) / 1000 || 0, `${ms} parses back`);
    }
  });
});

describe('shareRoom', () => {
  it('leaves short texts whole and splits the rest by weight', () => {
    assert.deepEqual(shareRoom([10, 20, 30], [1, 1, 1], 100), [10, 20, 30]);
    assert.deepEqual(shareRoom([10, 1000, 1000], [1, 4, 1], 510), [10, 400, 100]);
    assert.deepEqual(shareRoom([10, 1000, 50], [1, 4, 1], 510), [10, 450, 50]);
  });
});

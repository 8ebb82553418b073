import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeCommand, RedisError, RedisProtocolError, ReplyParser, type RedisReply } from '../../src/redis/index.js';

/** Every reply in `bytes`, fed as one chunk. */
function parseAll(bytes: string | Buffer, parser = new ReplyParser()): RedisReply[] {
  return parser.feed(Buffer.from(bytes));
}

/** Every reply in `bytes`, fed one byte at a time. */
function parseByteByByte(bytes: string | Buffer, parser = new ReplyParser()): RedisReply[] {
  const data = Buffer.from(bytes);
  const replies: RedisReply[] = [];
  for (let i = 0; i < data.length; i++) replies.push(...parser.feed(data.subarray(i, i + 1)));
  return replies;
}

const MIXED = '+OK\r\n-ERR wrong number of arguments\r\n:42\r\n:-7\r\n$5\r\nhel\r\n\r\n$0\r\n\r\n$-1\r\n*-1\r\n*0\r\n*3\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n$-1\r\n';

function assertMixed(replies: RedisReply[]): void {
  assert.equal(replies.length, 10);
  assert.equal(replies[0], 'OK');
  assert.ok(replies[1] instanceof RedisError);
  assert.equal((replies[1] as RedisError).message, 'ERR wrong number of arguments');
  assert.equal((replies[1] as RedisError).prefix, 'ERR');
  assert.equal(replies[2], 42);
  assert.equal(replies[3], -7);
  assert.deepEqual(replies[4], Buffer.from('hel\r\n'), 'a bulk string may hold CRLF');
  assert.deepEqual(replies[5], Buffer.alloc(0));
  assert.equal(replies[6], null, 'nil bulk');
  assert.equal(replies[7], null, 'nil array');
  assert.deepEqual(replies[8], []);
  assert.deepEqual(replies[9], [1, ['a', Buffer.from('b')], null]);
}

describe('ReplyParser', () => {
  it('reads every type from one merged chunk', () => {
    assertMixed(parseAll(MIXED));
  });

  it('reads the same replies fed one byte at a time', () => {
    const parser = new ReplyParser();
    assertMixed(parseByteByByte(MIXED, parser));
    assert.equal(parser.isMidReply, false);
  });

  it('reads replies split at every possible point', () => {
    const data = Buffer.from(MIXED);
    for (let cut = 1; cut < data.length; cut++) {
      const parser = new ReplyParser();
      const replies = [...parser.feed(data.subarray(0, cut)), ...parser.feed(data.subarray(cut))];
      assert.equal(replies.length, 10, `cut at ${cut}`);
      assert.deepEqual(replies[9], [1, ['a', Buffer.from('b')], null], `cut at ${cut}`);
    }
  });

  it('holds a reply back until its last byte arrives', () => {
    const parser = new ReplyParser();
    assert.deepEqual(parser.feed(Buffer.from('*2\r\n$3\r\nfoo\r\n:')), []);
    assert.equal(parser.isMidReply, true);
    assert.deepEqual(parser.feed(Buffer.from('5\r\n+next')), [[Buffer.from('foo'), 5]]);
    assert.deepEqual(parser.feed(Buffer.from('\r\n')), ['next']);
  });

  it('reads a big bulk string in many chunks, byte for byte', () => {
    const payload = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7919) & 0xff;
    const data = Buffer.concat([Buffer.from(`$${payload.length}\r\n`), payload, Buffer.from('\r\n:1\r\n')]);
    const parser = new ReplyParser();
    const replies: RedisReply[] = [];
    for (let at = 0; at < data.length; at += 1000) replies.push(...parser.feed(data.subarray(at, at + 1000)));
    assert.equal(replies.length, 2);
    assert.ok(payload.equals(replies[0] as Buffer));
    assert.equal(replies[1], 1);
  });

  it('reads integers beyond 2^53 as bigints, exactly', () => {
    assert.deepEqual(parseAll(':9007199254740991\r\n:9223372036854775807\r\n:-9223372036854775808\r\n'), [
      9007199254740991, 9223372036854775807n, -9223372036854775808n,
    ]);
  });

  it('refuses an integer longer than a signed 64-bit one can be written (20 characters), rather than read it as a bigint', () => {
    const lowest = '-9223372036854775808'; // 20 characters, the longest Redis sends
    assert.deepEqual(parseAll(`:${lowest}\r\n`), [BigInt(lowest)]);
    for (const text of [`1${'0'.repeat(20)}`, `-1${'0'.repeat(19)}`, '9'.repeat(400)]) {
      assert.throws(() => parseAll(`:${text}\r\n`), (err: Error) => err instanceof RedisProtocolError && err.message.includes('is not an integer'), text);
    }
  });

  it('reads lengths up to 2^53 - 1 and refuses one more as no length at all, whatever the limits allow', () => {
    const unbounded = { maxBulkBytes: Number.MAX_VALUE, maxArrayLength: Number.MAX_VALUE, maxReplyBytes: Number.MAX_VALUE };
    const largest = Number.MAX_SAFE_INTEGER;
    // Still a length, refused by the array bound: the length itself was read.
    assert.throws(() => parseAll(`*${largest}\r\n`), new RegExp(`array of ${largest} elements is over`));
    for (const type of ['$', '*']) {
      for (const text of [String(largest + 1), '9'.repeat(30)]) {
        for (const parser of [new ReplyParser(), new ReplyParser(unbounded)]) {
          assert.throws(() => parseAll(`${type}${text}\r\n`, parser), (err: Error) => err instanceof RedisProtocolError && err.message.includes('is not a length'), `${type}${text}`);
        }
      }
    }
  });

  it('reads an error inside an array as a value (EXEC)', () => {
    const [reply] = parseAll('*2\r\n+OK\r\n-WRONGTYPE Operation against a key\r\n');
    assert.ok(Array.isArray(reply));
    assert.equal(reply[0], 'OK');
    assert.ok(reply[1] instanceof RedisError);
    assert.equal((reply[1] as RedisError).prefix, 'WRONGTYPE');
  });

  it('reads UTF-8 in simple strings and errors', () => {
    assert.deepEqual(parseAll('+h\u00e9\r\n'), ['h\u00e9']);
  });

  const broken: readonly [string, string, RegExp][] = [
    ['an unknown type byte', '?x\r\n', /starts with byte 0x3f/],
    ['a RESP3 map', '%1\r\n', /0x25, not a RESP2 type/],
    ['LF without CR', '+OK\n', /LF alone/],
    ['an empty line', '\r\n', /empty reply line/],
    ['a bad integer', ':12a\r\n', /"12a" is not an integer/],
    ['an empty integer', ':\r\n', /not an integer/],
    ['a bad length', '$x\r\n', /"x" is not a length/],
    ['a negative length other than -1', '*-2\r\n', /not a length/],
    ['a bulk string without its CRLF', '$2\r\nabXY', /bulk string does not end with CRLF/],
  ];
  for (const [name, bytes, message] of broken) {
    it(`refuses ${name}`, () => {
      assert.throws(() => parseAll(bytes), (err: Error) => err instanceof RedisProtocolError && message.test(err.message), name);
    });
  }

  it('refuses a bulk string over the limit before taking its memory', () => {
    const parser = new ReplyParser({ maxBulkBytes: 10 });
    assert.deepEqual(parser.feed(Buffer.from('$10\r\n0123456789\r\n')), [Buffer.from('0123456789')]);
    assert.throws(() => parser.feed(Buffer.from('$536870912\r\n')), /bulk string of 536870912 bytes is over the 10-byte limit/);
  });

  it('refuses 1 MiB and one byte by default', () => {
    assert.throws(() => parseAll(`$${1024 * 1024 + 1}\r\n`), /over the 1048576-byte limit/);
  });

  it('refuses an array longer than the limit', () => {
    const parser = new ReplyParser({ maxArrayLength: 3 });
    assert.deepEqual(parser.feed(Buffer.from('*3\r\n:1\r\n:2\r\n:3\r\n')), [[1, 2, 3]]);
    assert.throws(() => parser.feed(Buffer.from('*4\r\n')), /array of 4 elements is over the 3-element limit/);
  });

  it('refuses arrays nested deeper than the limit', () => {
    assert.deepEqual(parseAll('*1\r\n*1\r\n:1\r\n', new ReplyParser({ maxDepth: 2 })), [[[1]]]);
    assert.throws(() => parseAll('*1\r\n*1\r\n*1\r\n:1\r\n', new ReplyParser({ maxDepth: 2 })), /nest deeper than 2/);
    assert.throws(() => parseAll('*1\r\n'.repeat(9) + ':1\r\n'), /nest deeper than 8/);
  });

  it('refuses a line without CRLF beyond the limit, even fed in pieces', () => {
    const parser = new ReplyParser({ maxLineBytes: 100 });
    assert.deepEqual(parser.feed(Buffer.from(`+${'a'.repeat(100)}\r\n`)), ['a'.repeat(100)]);
    parser.feed(Buffer.from(`+${'a'.repeat(60)}`));
    assert.throws(() => parser.feed(Buffer.from('a'.repeat(60))), /line is longer than 100 bytes/);
  });

  it('refuses 64 KiB without CRLF by default', () => {
    assert.throws(() => parseAll(`-${'x'.repeat(64 * 1024 + 2)}`), /longer than 65536 bytes/);
  });

  it('refuses a whole reply over the limit though each part is within its own', () => {
    const parser = new ReplyParser({ maxReplyBytes: 100 });
    const element = `$40\r\n${'x'.repeat(40)}\r\n`;
    assert.equal(parser.feed(Buffer.from(`*2\r\n${element}${element}`)).length, 1);
    assert.throws(() => parser.feed(Buffer.from(`*3\r\n${element}${element}${element}`)), /reply is over the 100-byte limit/);
  });

  it('stays failed after a protocol error: the connection is done', () => {
    const parser = new ReplyParser();
    assert.throws(() => parser.feed(Buffer.from('!\r\n')), RedisProtocolError);
    assert.throws(() => parser.feed(Buffer.from('+OK\r\n')), RedisProtocolError);
  });

  it('reads 100,000 replies in one chunk (linear: no rescan per reply)', () => {
    const replies = parseAll(':1\r\n'.repeat(100_000));
    assert.equal(replies.length, 100_000);
  });
});

describe('encodeCommand', () => {
  it('sends an array of bulk strings: text as UTF-8, numbers in decimal, bytes as they are', () => {
    const bytes = encodeCommand(['SET', 'caf\u00e9', 42, Buffer.from([0, 13, 10, 255])]);
    assert.deepEqual(bytes, Buffer.concat([
      Buffer.from('*4\r\n$3\r\nSET\r\n$5\r\ncaf\u00e9\r\n$2\r\n42\r\n$4\r\n', 'utf8'),
      Buffer.from([0, 13, 10, 255]),
      Buffer.from('\r\n'),
    ]));
  });

  it('is read back by the parser as the same arguments', () => {
    const [reply] = parseAll(encodeCommand(['EVALSHA', 'abc', 1, 'key', '']));
    assert.deepEqual((reply as Buffer[]).map(String), ['EVALSHA', 'abc', '1', 'key', '']);
  });

  it('refuses no arguments and numbers that are not finite, as caller errors', () => {
    assert.throws(() => encodeCommand([]), TypeError);
    assert.throws(() => encodeCommand(['INCRBY', 'k', Number.NaN]), /finite number, not NaN/);
    assert.throws(() => encodeCommand(['INCRBY', 'k', Infinity]), TypeError);
  });
});

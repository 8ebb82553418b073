import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSecretMasker, maskJsonValue, maskText, secretValuesOf } from '../../src/config/secrets.js';
import { testConfig } from '../helpers/service.js';
import { Random } from '../fuzz/rng.js';

describe('secretValuesOf', () => {
  it('lists the configured values of 4+ characters, longest first', () => {
    const config = testConfig({ APP_SECRET: 'abcd', APP_KEY: 'abcdefgh' });
    assert.deepEqual(secretValuesOf(config), ['abcdefgh', 'abcd']);
  });
  it("counts REDIS_URL's password among them", () => {
    const config = testConfig({ APP_SECRET: 'abcd', REDIS_URL: 'redis://:redis-pw-0006@127.0.0.1:6379/0' });
    assert.deepEqual(secretValuesOf(config), ['redis-pw-0006', 'abcd']);
    assert.equal(createSecretMasker(config)('GET /?p=redis-pw-0006'), 'GET /?p=******');
  });
});

describe('createSecretMasker', () => {
  it('masks the longer of two overlapping secrets whole', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: 'abcd', APP_KEY: 'abcdefgh' }));
    assert.equal(mask('x abcdefgh y abcd'), 'x ****** y ******');
  });
  it('takes a secret with pattern characters literally', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: 'a.b*|(c', APP_KEY: '^[x]+$\\' }));
    assert.equal(mask('1 a.b*|(c 2 ^[x]+$\\ 3'), '1 ****** 2 ****** 3');
    assert.equal(mask('axbbb|(c xx a'), 'axbbb|(c xx a');
  });
  it('masks a text exactly as long as the shortest secret', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: 'abcd', APP_KEY: 'abcdefgh' }));
    assert.equal(mask('abc'), 'abc');
    assert.equal(mask('abcd'), '******');
    assert.equal(mask('x abcd'), 'x ******');
  });
  it('scans a 16 KiB text of near-misses whole: unchanged, and masked where a secret ends it', () => {
    const mask = createSecretMasker(testConfig({ APP_SECRET: `${'a'.repeat(29)}b`, APP_KEY: `${'a'.repeat(99)}g` }));
    const nearMisses = 'a'.repeat(16_384);
    assert.equal(mask(nearMisses), nearMisses);
    assert.equal(mask(`${nearMisses}b`), `${'a'.repeat(16_384 - 29)}******`);
  });
  it('says what may start a secret: a text its trigger finds nothing in comes back unchanged', () => {
    const values = { APP_SECRET: 'a.b*|(c-secret', APP_KEY: 'key with space', APP_ID: 'id-0123456789' };
    const mask = createSecretMasker(testConfig(values));
    const trigger = mask.trigger!;
    for (const text of ['a.b*|(c-secret', 'x key with space y', '/q?k=key+with+space', '/a%2Eb', 'id-01', '/a.b*']) {
      assert.ok(trigger.test(text), text);
    }
    // The values' starts, taken literally: `a.b*` is no pattern that `axbbb` matches.
    for (const text of ['axbbb', 'key', '/plain/path?x=1', 'curl/8.5.0 id-']) assert.ok(!trigger.test(text), text);
    const random = new Random(2026);
    const pieces = ['a', '.', 'b', '*', '|', '(', 'c', '-', 'key', ' ', 'with', '+', '%', '2E', 'id', '0123', 'é', '/'];
    for (let i = 0; i < 5_000; i++) {
      let text = '';
      for (let n = random.int(0, 12); n > 0; n--) text += pieces[random.int(0, pieces.length - 1)];
      if (!trigger.test(text)) assert.equal(mask(text), text, text);
    }
    assert.equal(createSecretMasker(testConfig()).trigger, undefined);
  });
  it('is the identity without secrets', () => {
    const mask = createSecretMasker(testConfig());
    assert.equal(mask('nothing to hide'), 'nothing to hide');
  });
  it('maskText leaves text without a secret as it is', () => assert.equal(maskText('plain', ['secret-x']), 'plain'));
});

describe('maskText in every form a client can send', () => {
  it('masks a secret sent percent-encoded, in either case of hex digit', () => {
    const secrets = ['s3cr3t+/value=='];
    assert.equal(maskText('/x/s3cr3t%2B%2Fvalue%3D%3D/y', secrets), '/x/******/y');
    assert.equal(maskText('/x/s3cr3t%2b%2fvalue%3d%3d/y', secrets), '/x/******/y');
  });
  it('masks a secret sent form-encoded (+ for a space)', () => {
    assert.equal(maskText('?p=br0ker+pass%2Fw0rd&q=1', ['br0ker pass/w0rd']), '?p=******&q=1');
  });
  it('masks a secret whose every byte is %XX, and any mix of raw and encoded bytes', () => {
    const secrets = ['hunter22'];
    assert.equal(maskText('/%68%75%6E%74%65%72%32%32', secrets), '/******');
    assert.equal(maskText('/%68u%6et%65r2%32!', secrets), '/******!');
  });
  it('masks a non-ASCII secret sent as percent-encoded UTF-8', () => {
    assert.equal(maskText('/contraseña/ and /contrase%C3%B1a/ and /contrase%c3%b1a', ['contraseña']), '/******/ and /******/ and /******');
  });
  it('masks a raw secret that holds a percent escape of its own, and that escape encoded again', () => {
    assert.equal(maskText('/ab%41cd and /ab%2541cd', ['ab%41cd']), '/****** and /******');
  });
  it('leaves a text that only looks like an encoded secret unchanged', () => {
    assert.equal(maskText('/hunter2%3 /%68%75%6E%74%65%72%32', ['hunter22']), '/hunter2%3 /%68%75%6E%74%65%72%32');
  });
  it('masks overlapping occurrences as one mask, leaving no part of a secret', () => {
    assert.equal(maskText('xababab', ['abab']), 'x******');
  });
  it('masks every secret hidden at random in percent and form encodings among noise, and leaves the noise alone', () => {
    // Noise of every kind the readings treat apart: escapes, stray %, +, non-ASCII, a lone surrogate.
    const NOISE = 'ab%2+5F%e9 /?=&%%ñü€😀\ud800%C3%A9x';
    const secrets = ['br0ker pass/w0rd', 'contraseña-Ü', 'tok3n+%41=='];
    const encodeByte = (random: Random, byte: number, spaceAsPlus: boolean) => {
      if (byte === 0x20 && spaceAsPlus) return '+';
      // As a client must: a `%` always escaped, and a `+` too where `+` means a space.
      if (byte >= 0x80 || byte === 0x25 || (byte === 0x2b && spaceAsPlus) || random.chance(0.5)) {
        const hex = byte.toString(16).padStart(2, '0');
        return `%${random.chance(0.5) ? hex.toUpperCase() : hex}`;
      }
      return String.fromCharCode(byte);
    };
    /** What a reading of the text decodes to: %XX as its byte, + as a space, as UTF-8 bytes. */
    const decoded = (text: string) =>
      Buffer.from(text.replaceAll('+', ' '), 'utf8').toString('latin1').replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    for (let seed = 1; seed <= 300; seed++) {
      const random = new Random(seed);
      const noise = () => random.text(NOISE, random.int(0, 12));
      const noiseOnly = noise() + noise();
      assert.equal(maskText(noiseOnly, secrets), noiseOnly, `seed ${seed}: noise changed`);
      const secret = secrets[random.int(0, secrets.length - 1)]!;
      const spaceAsPlus = random.chance(0.5);
      // A character beyond ASCII raw, or its UTF-8 bytes escaped; an ASCII one raw or escaped.
      const hidden = [...secret]
        .map((char) => (char.charCodeAt(0) >= 0x80 && random.chance(0.5) ? char : [...Buffer.from(char, 'utf8')].map((byte) => encodeByte(random, byte, spaceAsPlus)).join('')))
        .join('');
      // A slash apart from the noise, whose `%` or `%2` would otherwise take the secret's first characters into an escape.
      const masked = maskText(`${noise()}/${hidden}/${noise()}`, secrets);
      assert.ok(masked.includes('******'), `seed ${seed}: ${hidden} not masked`);
      assert.ok(!decoded(masked).includes(Buffer.from(secret, 'utf8').toString('latin1')), `seed ${seed}: ${secret} still readable in ${masked}`);
    }
  });
  it('masks a 1 MiB text of near-misses in every form whole (linear: a quadratic scan would not end)', () => {
    const secret = `${'a'.repeat(2047)}b`;
    const encoded = '%61'.repeat(350_000);
    assert.equal(maskText(encoded, [secret]), encoded);
    assert.equal(maskText(`${encoded}%62`, [secret]), `${'%61'.repeat(350_000 - 2047)}******`);
    const raw = `${'a'.repeat(1 << 20)}b`;
    assert.equal(maskText(raw, [secret, 'a b a b']), `${'a'.repeat((1 << 20) - 2047)}******`);
    // Every other character beyond ASCII, every other a stray `%`: decoded in one pass all the same.
    const mixed = 'é%'.repeat(300_000);
    assert.equal(maskText(`${mixed}%68unter22`, ['hunter22']), `${mixed}******`);
  });
});

describe('maskJsonValue', () => {
  it('masks every string of a document, member names and nested members included', () => {
    const doc = {
      detail: 'x hunter22',
      status: 422,
      errors: [{ pointer: '/hunter%32%32', reason: 'is not a known member' }, ['deep', { 'hunter22-key': 'hunter22' }]],
      ok: true,
      none: null,
    };
    assert.deepEqual(maskJsonValue(doc, ['hunter22']), {
      detail: 'x ******',
      status: 422,
      errors: [{ pointer: '/******', reason: 'is not a known member' }, ['deep', { '******-key': '******' }]],
      ok: true,
      none: null,
    });
    assert.equal(doc.detail, 'x hunter22', 'the original was changed');
  });
  it('keeps a member named __proto__ a member, and walks 100,000 levels without overflowing the stack', () => {
    const parsed = JSON.parse('{"__proto__": "hunter22"}') as object;
    assert.deepEqual(Object.entries(maskJsonValue(parsed, ['hunter22']) as object), [['__proto__', '******']]);
    const deep = JSON.parse(`${'['.repeat(100_000)}"hunter22"${']'.repeat(100_000)}`) as unknown;
    let inner = maskJsonValue(deep, ['hunter22']);
    for (let i = 0; i < 100_000; i++) inner = (inner as unknown[])[0];
    assert.equal(inner, '******');
  });
});

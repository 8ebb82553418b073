import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTzif } from '../../src/log/tzif.js';
import { zoneOffsets } from '../../src/log/zoned-time.js';

const at = (iso: string) => Date.parse(iso) / 1000;

interface TzifSpec {
  readonly version?: string;
  readonly transitions: readonly { readonly at: number; readonly type: number }[];
  /** UTC offsets of the time types, in seconds. */
  readonly types: readonly number[];
  readonly footer: string;
  readonly leapSeconds?: number;
}

/** A TZif file as RFC 8536 lays it out: an empty version 1 block, then the 64-bit block and the footer. */
function tzif(spec: TzifSpec): Uint8Array {
  const header = (counts: { time: number; type: number; char: number; leap: number }) => {
    const bytes = new Uint8Array(44);
    bytes.set([0x54, 0x5a, 0x69, 0x66, (spec.version ?? '2').charCodeAt(0)]);
    const view = new DataView(bytes.buffer);
    [0, 0, counts.leap, counts.time, counts.type, counts.char].forEach((n, i) => view.setUint32(20 + i * 4, n));
    return bytes;
  };
  // The version 1 block: one type, one designation byte, no transitions (readers of v2 skip it).
  const v1 = [header({ time: 0, type: 1, char: 1, leap: 0 }), new Uint8Array(7)];
  const leap = spec.leapSeconds ?? 0;
  const data = new DataView(new ArrayBuffer(spec.transitions.length * 9 + spec.types.length * 6 + 1 + leap * 12));
  spec.transitions.forEach((t, i) => {
    data.setBigInt64(i * 8, BigInt(t.at));
    data.setUint8(spec.transitions.length * 8 + i, t.type);
  });
  spec.types.forEach((offset, i) => data.setInt32(spec.transitions.length * 9 + i * 6, offset));
  const footer = new TextEncoder().encode(`\n${spec.footer}\n`);
  const parts = [...v1, header({ time: spec.transitions.length, type: spec.types.length, char: 1, leap }), new Uint8Array(data.buffer), footer];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Madrid in short: local mean time, then CET from 1901, summer time in 2025, the rule after. */
const MADRID_LIKE: TzifSpec = {
  transitions: [
    { at: at('1901-01-01T00:14:44Z'), type: 1 },
    { at: at('2025-03-30T01:00:00Z'), type: 2 },
    { at: at('2025-10-26T01:00:00Z'), type: 1 },
  ],
  types: [-884, 3600, 7200],
  footer: 'CET-1CEST,M3.5.0,M10.5.0/3',
};

describe('parseTzif', () => {
  it('gives the first time type before the first transition, each transition\'s type after it, the footer\'s rule after the last', () => {
    const offsets = parseTzif(tzif(MADRID_LIKE));
    assert.ok(offsets);
    assert.equal(offsets(at('1900-06-01T00:00:00Z')), -884, 'local mean time before 1901');
    assert.equal(offsets(at('2000-06-01T00:00:00Z')), 3600, 'between the first transitions');
    assert.equal(offsets(at('2025-03-30T00:59:59Z')), 3600, 'a second before the 2025 change');
    assert.equal(offsets(at('2025-03-30T01:00:00Z')), 7200, 'at the 2025 change');
    assert.equal(offsets(at('2025-10-26T01:00:00Z')), 3600, 'at the last transition');
    assert.equal(offsets(at('2026-03-29T01:00:00Z')), 7200, 'the footer\'s rule in 2026');
    assert.equal(offsets(at('2026-10-25T01:00:00Z')), 3600, 'the footer\'s rule ends it');
  });

  it('keeps the last type for ever when the footer is empty', () => {
    const offsets = parseTzif(tzif({ ...MADRID_LIKE, footer: '' }));
    assert.ok(offsets);
    assert.equal(offsets(at('2026-07-01T00:00:00Z')), 3600);
  });

  it('reads a zone with no transitions from its footer (UTC, or a fixed offset)', () => {
    const offsets = parseTzif(tzif({ transitions: [], types: [19800], footer: '<+0530>-5:30' }));
    assert.ok(offsets);
    assert.equal(offsets(at('2026-07-01T00:00:00Z')), 19800);
  });

  it('refuses version 1 files, leap second tables, a bad magic, a bad footer and truncated files', () => {
    const good = tzif(MADRID_LIKE);
    const badMagic = good.slice();
    badMagic[0] = 0x58;
    const cases: Record<string, Uint8Array> = {
      'version 1': tzif({ ...MADRID_LIKE, version: '\0' }),
      'leap seconds': tzif({ ...MADRID_LIKE, leapSeconds: 1 }),
      'bad magic': badMagic,
      'unreadable footer': tzif({ ...MADRID_LIKE, footer: 'CET-1CEST' }),
      truncated: good.subarray(0, good.length - 10),
      empty: new Uint8Array(0),
    };
    for (const [name, bytes] of Object.entries(cases)) assert.equal(parseTzif(bytes), undefined, name);
  });
});

describe('zoneOffsets and TZDIR', () => {
  it('reads a zone from the directory TZDIR names, as the C library does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tzdir-'));
    try {
      mkdirSync(join(dir, 'Test'));
      writeFileSync(join(dir, 'Test', 'Plus0530'), tzif({ transitions: [], types: [19800], footer: '<+0530>-5:30' }));
      const saved = process.env.TZDIR;
      process.env.TZDIR = dir;
      try {
        assert.equal(zoneOffsets('Test/Plus0530')(at('2026-07-01T00:00:00Z')), 19800);
      } finally {
        if (saved === undefined) delete process.env.TZDIR;
        else process.env.TZDIR = saved;
      }
      assert.equal(zoneOffsets('Test/Plus0530', dir)(at('2026-01-01T00:00:00Z')), 19800);
      // Without it, the zone is nobody's: Intl refuses the name.
      assert.throws(() => zoneOffsets('Test/Plus0530', join(dir, 'nowhere')), RangeError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJpeg, type JpegOptions } from '../../src/jpeg/encode.js';
import { STD_DC_LUMA } from '../../src/jpeg/huffman.js';
import { scaleQuantTable, STD_LUMA_QUANT } from '../../src/jpeg/quantize.js';
import { ZIGZAG } from '../../src/jpeg/zigzag.js';
import { makeImage } from './images.js';
import { segments, type Segment } from './tools.js';

const NAMES: Record<number, string> = {
  0xd8: 'SOI', 0xe0: 'APP0', 0xfe: 'COM', 0xdb: 'DQT', 0xc0: 'SOF0', 0xc4: 'DHT', 0xdd: 'DRI', 0xda: 'SOS', 0xd9: 'EOI',
};

function encode(channels: 1 | 3, options: JpegOptions = {}): { bytes: Uint8Array; list: Segment[] } {
  const bytes = encodeJpeg(makeImage('poster', 17, 15, channels), options);
  return { bytes, list: segments(bytes) };
}

const payload = (bytes: Uint8Array, s: Segment): number[] => [...bytes.subarray(s.offset + 4, s.offset + 2 + s.length)];

describe('markers', () => {
  it('writes SOI, APP0, DQT x2, SOF0, DHT x4, SOS and EOI in that order for colour', () => {
    const { list } = encode(3);
    assert.deepEqual(list.map((s) => NAMES[s.marker]), ['SOI', 'APP0', 'DQT', 'DQT', 'SOF0', 'DHT', 'DHT', 'DHT', 'DHT', 'SOS', 'EOI']);
  });

  it('adds COM after APP0 and DRI before SOS when asked', () => {
    const { bytes, list } = encode(3, { comment: 'héllo', restartInterval: 2 });
    assert.deepEqual(list.map((s) => NAMES[s.marker]).slice(0, 4), ['SOI', 'APP0', 'COM', 'DQT']);
    const com = list[2];
    assert.equal(Buffer.from(payload(bytes, com)).toString('utf8'), 'héllo');
    assert.equal(com.length, 2 + 6);
    const dri = list[list.length - 3];
    assert.equal(NAMES[dri.marker], 'DRI');
    assert.deepEqual([dri.length, ...payload(bytes, dri)], [4, 0, 2]);
  });

  it('writes one DQT, DHT for DC and AC of table 0 and a one-component SOF0 and SOS for grey', () => {
    const { bytes, list } = encode(1);
    assert.deepEqual(list.map((s) => NAMES[s.marker]), ['SOI', 'APP0', 'DQT', 'SOF0', 'DHT', 'DHT', 'SOS', 'EOI']);
    const sof = list[3];
    assert.deepEqual([sof.length, ...payload(bytes, sof)], [11, 8, 0, 15, 0, 17, 1, 1, 0x11, 0]);
    const sos = list[6];
    assert.deepEqual([sos.length, ...payload(bytes, sos)], [8, 1, 1, 0x00, 0, 63, 0]);
  });

  it('writes a JFIF 1.01 APP0 with a 1:1 aspect ratio and no thumbnail', () => {
    const { bytes, list } = encode(3);
    assert.equal(list[1].length, 16);
    assert.deepEqual(payload(bytes, list[1]), [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  });

  it('writes SOF0 with 8-bit precision, the size and each subsampling as Hi/Vi', () => {
    const factors: Array<[JpegOptions['subsampling'], number]> = [['4:2:0', 0x22], ['4:2:2', 0x21], ['4:4:4', 0x11]];
    for (const [subsampling, luma] of factors) {
      const { bytes, list } = encode(3, { subsampling });
      const sof = list.find((s) => s.marker === 0xc0)!;
      assert.deepEqual([sof.length, ...payload(bytes, sof)],
        [17, 8, 0, 15, 0, 17, 3, 1, luma, 0, 2, 0x11, 1, 3, 0x11, 1], String(subsampling));
    }
  });

  it('writes each DQT as 8-bit precision with the table in zig-zag order', () => {
    const { bytes, list } = encode(3, { quality: 50 });
    const dqt = list[2];
    assert.equal(dqt.length, 67);
    const table = scaleQuantTable(STD_LUMA_QUANT, 50);
    assert.deepEqual(payload(bytes, dqt), [0x00, ...Array.from(ZIGZAG, (n) => table[n])]);
    assert.equal(bytes[list[3].offset + 4], 0x01, 'second table has Pq = 0, Tq = 1');
  });

  it('writes the DHT tables in the order DC 0, AC 0, DC 1, AC 1 with their lengths', () => {
    const { bytes, list } = encode(3, { optimizeHuffman: false });
    const dht = list.filter((s) => s.marker === 0xc4);
    assert.deepEqual(dht.map((s) => bytes[s.offset + 4]), [0x00, 0x10, 0x01, 0x11]);
    assert.deepEqual(dht.map((s) => s.length), [2 + 17 + 12, 2 + 17 + 162, 2 + 17 + 12, 2 + 17 + 162]);
    assert.deepEqual(payload(bytes, dht[0]).slice(1), [...STD_DC_LUMA.bits, ...STD_DC_LUMA.values]);
  });

  it('writes SOS selecting table 0 for Y and table 1 for Cb and Cr', () => {
    const { bytes, list } = encode(3);
    const sos = list.find((s) => s.marker === 0xda)!;
    assert.deepEqual([sos.length, ...payload(bytes, sos)], [12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);
  });

  it('ends the file with EOI right after the entropy-coded data', () => {
    const { bytes } = encode(3);
    assert.deepEqual([bytes[0], bytes[1]], [0xff, 0xd8]);
    assert.deepEqual([bytes[bytes.length - 2], bytes[bytes.length - 1]], [0xff, 0xd9]);
  });
});

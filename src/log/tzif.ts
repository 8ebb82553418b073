/**
 * TZif files (RFC 8536), the system's time zone database (`/usr/share/zoneinfo/Europe/Madrid`):
 * bytes in, the zone's UTC offset at each instant out. Pure; reading the file is the caller's.
 * Version 2 and later only (their 64-bit block and TZ string footer); anything else, leap
 * second tables included, is refused so the caller can ask Intl instead.
 */
import { parsePosixTz, type OffsetAt } from './posix-tz.js';

export type { OffsetAt } from './posix-tz.js';

const HEADER_BYTES = 44;

interface Counts {
  readonly isut: number;
  readonly isstd: number;
  readonly leap: number;
  readonly time: number;
  readonly type: number;
  readonly char: number;
}

/** The offsets a TZif file describes, or undefined when it is not one this reads. */
export function parseTzif(bytes: Uint8Array): OffsetAt | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const v1 = readHeader(view, 0);
  if (v1 === undefined || view.getUint8(4) < 0x32) return undefined; // version '2' or later
  // RFC 8536 3.1: the version 1 block (4-byte times) comes first; its data is skipped.
  const v1Bytes = v1.time * 5 + v1.type * 6 + v1.char + v1.leap * 8 + v1.isstd + v1.isut;
  const at = HEADER_BYTES + v1Bytes;
  const counts = readHeader(view, at);
  if (counts === undefined || counts.leap > 0 || counts.type === 0) return undefined;
  const timesAt = at + HEADER_BYTES;
  const indicesAt = timesAt + counts.time * 8;
  const typesAt = indicesAt + counts.time;
  const footerAt = typesAt + counts.type * 6 + counts.char + counts.isstd + counts.isut;
  if (footerAt >= bytes.length || view.getUint8(footerAt) !== 0x0a) return undefined;
  const footerEnd = bytes.indexOf(0x0a, footerAt + 1);
  if (footerEnd < 0) return undefined;
  for (let i = 0; i < counts.time; i++) if (view.getUint8(indicesAt + i) >= counts.type) return undefined;
  let footer = '';
  for (let i = footerAt + 1; i < footerEnd; i++) footer += String.fromCharCode(view.getUint8(i));
  // An empty footer: the last transition's type holds for ever after (RFC 8536 3.3).
  const after = footer === '' ? undefined : parsePosixTz(footer);
  if (footer !== '' && after === undefined) return undefined;

  // Read in place: a zone's file is a few KiB, its transitions a few hundred.
  // A copy: a Buffer's `slice` is a view, and its `buffer` may be a shared pool.
  const zone = new DataView(new Uint8Array(bytes.subarray(timesAt, footerAt)).buffer);
  const typeOffset = (type: number) => zone.getInt32(typesAt - timesAt + type * 6);
  // A signed 64-bit count of seconds, read as two halves (no BigInt: exact below 2^53).
  const transition = (i: number) => zone.getInt32(i * 8) * 2 ** 32 + zone.getUint32(i * 8 + 4);
  const offsetAfter = (i: number) => typeOffset(zone.getUint8(indicesAt - timesAt + i));
  const last = counts.time - 1;
  return (epochSeconds) => {
    // Before the first transition, the first time type (3.2); after the last, the footer.
    if (last < 0) return after?.(epochSeconds) ?? typeOffset(0);
    if (epochSeconds < transition(0)) return typeOffset(0);
    if (after !== undefined && epochSeconds > transition(last)) return after(epochSeconds);
    // The last transition at or before the instant (the first is).
    let low = 0;
    let high = last;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (transition(middle) <= epochSeconds) low = middle;
      else high = middle - 1;
    }
    return offsetAfter(low);
  };
}

/** The counts of a `TZif` header at `at`, or undefined without the magic or the room for it. */
function readHeader(view: DataView, at: number): Counts | undefined {
  if (view.byteLength < at + HEADER_BYTES || view.getUint32(at) !== 0x545a6966) return undefined; // "TZif"
  const count = (n: number) => view.getUint32(at + 20 + n * 4);
  return { isut: count(0), isstd: count(1), leap: count(2), time: count(3), type: count(4), char: count(5) };
}

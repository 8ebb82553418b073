/** Byte buffers seen as 32-bit words, for loops that store four bytes at a time. */

/**
 * `data` seen as 32-bit words, when stores of words put bytes in memory order (little-endian
 * machines) and the bytes start on a word boundary; else undefined, and callers work a byte at a
 * time. The view covers the whole words of `data` (length / 4, rounded down).
 */
export function wordView(data: Uint8Array): Uint32Array | undefined {
  const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
  return littleEndian && data.byteOffset % 4 === 0 ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2) : undefined;
}

/**
 * Typed arrays keep their bytes outside V8's heap, and those bytes go back to the system only
 * when a full garbage collection finds the array dead. Full collections come late for memory the
 * heap does not count, so a run of one-off renders piled up dead encoder buffers and font bytes
 * (bench/RESULTS.md, "Posters against the canvases"). Detaching the buffer frees it now.
 *
 * At a price, so only calls made for one poster or one image use it: after the first detached
 * buffer, V8 checks for detachment at every typed-array access of the isolate (a kept renderer's
 * posters took 3.8 % more instructions; see poster/worker.ts). A run of posters keeps its buffers
 * instead.
 */

/**
 * Frees `array`'s bytes now; `array` (and every other view of its buffer) has length 0 after.
 * Only a view that spans its whole buffer is freed: part of a buffer (a pooled Buffer's slice)
 * is left to the collector, since other views may still read the rest.
 */
export function freeNow(array: ArrayBufferView): void {
  const buffer = array.buffer as ArrayBufferLike & Partial<Es2024ArrayBuffer>;
  if (array.byteOffset !== 0 || array.byteLength !== buffer.byteLength) return;
  buffer.transfer?.(0);
}

/** ES2024's `ArrayBuffer.prototype.transfer` (Node 22 and later), past the ES2023 library the build types against. */
interface Es2024ArrayBuffer {
  transfer(newByteLength: number): ArrayBuffer;
}

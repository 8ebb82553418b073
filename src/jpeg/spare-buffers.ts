/**
 * What one encode leaves for the next: the output buffer and the symbol records, and the working
 * objects themselves. An encoder that owns one (one per render worker) does not allocate, and
 * leave to the garbage collector, megabytes per image, nor lose its compiled code to a collection
 * (see keepWorkingObjects); encoding is synchronous, so nothing else ever shares it. A one-off
 * encode has none and allocates afresh.
 */
import { freeNow } from '../util/free-now.js';

/** Largest output buffer kept between encodes: 16 MiB. */
export const MAX_SPARE_BYTES = 1 << 24;
/** Largest record storage kept between encodes: 4 Mi records, 16 MiB. */
export const MAX_SPARE_RECORDS = 1 << 22;

export class SpareBuffers {
  #bytes: Uint8Array = new Uint8Array(0);
  #records: Int32Array = new Int32Array(0);
  #workingObjects: readonly object[] = [];

  /** The kept output buffer if it holds `capacity` bytes, else a new one; the spare is given up. */
  takeBytes(capacity: number): Uint8Array {
    const bytes = this.#bytes.length >= capacity ? this.#bytes : new Uint8Array(capacity);
    this.#bytes = new Uint8Array(0);
    return bytes;
  }

  /** Keeps a finished output buffer for the next encode, if it is larger and within the bound. */
  keepBytes(bytes: Uint8Array): void {
    if (bytes.length <= MAX_SPARE_BYTES && bytes.length > this.#bytes.length) this.#bytes = bytes;
  }

  /** The kept record storage if it holds `capacity` records, else a new one. */
  takeRecords(capacity: number): Int32Array {
    if (this.#records.length < capacity) return new Int32Array(capacity);
    const records = this.#records;
    this.#records = new Int32Array(0);
    return records;
  }

  /** Keeps finished record storage for the next encode, if it is larger and within the bound. */
  keepRecords(records: Int32Array): void {
    if (records.length <= MAX_SPARE_RECORDS && records.length > this.#records.length) this.#records = records;
  }

  /**
   * Keeps the last encode's working objects (scan model, symbol stream, bit writer) until the next
   * encode replaces them, for their hidden classes alone. V8 frees a class's hidden class with its
   * last instance, and the next full garbage collection throws away the compiled code of every
   * function specialised to it: after one, the next image was encoded half in the interpreter,
   * 20-30 ms slower on a 1125 x 2436 photo (97 against 77 ms; bench:jpeg measures it). Their
   * storage is handed back before, so they hold a few tens of KiB: the samples of one MCU row.
   */
  keepWorkingObjects(objects: readonly object[]): void {
    this.#workingObjects = objects;
  }

  /**
   * Frees the kept buffers now (see freeNow) and drops the working objects, for an encoder made
   * for one image; a later encode allocates afresh.
   */
  release(): void {
    freeNow(this.#bytes);
    freeNow(this.#records);
    this.#bytes = new Uint8Array(0);
    this.#records = new Int32Array(0);
    this.#workingObjects = [];
  }
}

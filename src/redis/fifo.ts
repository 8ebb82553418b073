/**
 * A first-in first-out queue with O(1) push and shift: the commands a connection waits on, matched
 * to replies in the order they were written. (`Array.prototype.shift` moves every element: ten
 * thousand pipelined commands would cost a hundred million moves.)
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  /** Takes the oldest item; undefined when empty. */
  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined; // let it be collected
    // Compact once the taken slots are half the array: each item is moved at most once more.
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Takes every item, oldest first. */
  drain(): T[] {
    const items = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return items;
  }
}

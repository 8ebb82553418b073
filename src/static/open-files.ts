/**
 * A bound on the files open for static answers at once (README, "Limits"). Without it, enough clients
 * asking for files they read slowly would make the process open descriptors until the system
 * refuses (EMFILE), and every request after that, static or not, would fail. Past the bound a
 * static request waits in line, in arrival order, for a file to close: it is answered later,
 * never refused.
 */

/**
 * Files open for static answers at once. Each connection has at most
 * MAX_IN_FLIGHT_PER_CONNECTION (16) of its requests being answered, so this is what 16 slowly
 * reading clients that pipeline can hold; everyone else's static requests wait their turn.
 */
export const MAX_OPEN_STATIC_FILES = 256;

/** Counts open files against a bound; a request past it waits for one to close. */
export class OpenFileSlots {
  readonly #limit: number;
  #open = 0;
  /** Waiting requests in arrival order; `#next` is the first one still waiting. */
  #waiting: (() => void)[] = [];
  #next = 0;

  constructor(limit: number = MAX_OPEN_STATIC_FILES) {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`limit must be a positive integer, got ${limit}`);
    this.#limit = limit;
  }

  /** Files counted as open now. */
  get open(): number {
    return this.#open;
  }

  /** Takes a slot now when one is free (the usual case: no promise, no wait). */
  tryTake(): boolean {
    if (this.#open >= this.#limit) return false;
    this.#open++;
    return true;
  }

  /** Resolves once a slot is taken for the caller; callers past the bound wait in order. */
  take(): Promise<void> {
    if (this.tryTake()) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a slot back (its file was closed): the first waiting caller takes it over. */
  give(): void {
    if (this.#next < this.#waiting.length) {
      const wake = this.#waiting[this.#next]!;
      this.#waiting[this.#next++] = undefined as never; // the waiter is collected once woken
      if (this.#next === this.#waiting.length) {
        this.#waiting = [];
        this.#next = 0;
      }
      wake(); // the slot passes on: `#open` stays as it is
      return;
    }
    this.#open--;
  }
}

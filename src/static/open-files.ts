/**
 * A bound on the files open for static answers at once (docs/http.md, "Limits"), shared fairly.
 * Without a bound, enough clients asking for files they read slowly would make the process open
 * descriptors until the system refuses (EMFILE), and every request after that, static or not,
 * would fail. With one bound alone, a few clients that pipeline large files and read nothing
 * would hold every slot. So a client address holds at most a share of the slots (and a
 * connection one at a time: `serve.ts` opens a file only when its answer is next on its
 * connection); a request past the bound waits in line, in arrival order, and one that gets no
 * slot within SLOT_WAIT_MS is answered 503 with `Retry-After` rather than left hanging.
 */

/** Files open for static answers at once, across the process. */
export const MAX_OPEN_STATIC_FILES = 256;

/** Files open at once for one client address: an eighth of the slots. */
export const MAX_OPEN_FILES_PER_CLIENT = 32;

/** How long a static request waits for a slot before it is answered 503. */
export const SLOT_WAIT_MS = 2_000;

/** A slot held by a request: given back once, when its file is closed. */
export interface FileSlot {
  give(): void;
}

/** A request waiting for a slot. */
interface Waiter {
  readonly client: string;
  readonly wake: (slot: FileSlot | undefined) => void;
  readonly timer: NodeJS.Timeout;
}

/** Counts open files against the bounds; a request past them waits for one to close. */
export class OpenFileSlots {
  readonly #limit: number;
  readonly #perClient: number;
  #open = 0;
  /** Slots held per client address; an address holding none has no entry. */
  readonly #byClient = new Map<string, number>();
  /** Waiting requests in arrival order. */
  readonly #waiting: Waiter[] = [];

  constructor(limit: number = MAX_OPEN_STATIC_FILES, perClient: number = MAX_OPEN_FILES_PER_CLIENT) {
    if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`limit must be a positive integer, got ${limit}`);
    if (!Number.isInteger(perClient) || perClient < 1) throw new TypeError(`perClient must be a positive integer, got ${perClient}`);
    this.#limit = limit;
    this.#perClient = Math.min(perClient, limit);
  }

  /** Files counted as open now. */
  get open(): number {
    return this.#open;
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** A slot for `client` now, when one is free and within its share; undefined otherwise. */
  tryTake(client: string): FileSlot | undefined {
    if (!this.#fits(client)) return undefined;
    return this.#take(client);
  }

  /**
   * A slot for `client`: at once, or after the requests that came before it and could take one;
   * undefined when none came within `waitMs`.
   */
  take(client: string, waitMs: number): Promise<FileSlot | undefined> {
    const now = this.tryTake(client);
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        client,
        wake: resolve,
        timer: setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
          resolve(undefined);
        }, waitMs),
      };
      this.#waiting.push(waiter);
    });
  }

  #fits(client: string): boolean {
    return this.#open < this.#limit && (this.#byClient.get(client) ?? 0) < this.#perClient;
  }

  #take(client: string): FileSlot {
    this.#open++;
    this.#byClient.set(client, (this.#byClient.get(client) ?? 0) + 1);
    let given = false;
    return {
      give: () => {
        if (given) return;
        given = true;
        this.#give(client);
      },
    };
  }

  /** A file of `client` closed: the first waiting request that now fits takes a slot. */
  #give(client: string): void {
    this.#open--;
    const held = this.#byClient.get(client)! - 1;
    if (held === 0) this.#byClient.delete(client);
    else this.#byClient.set(client, held);
    const next = this.#waiting.findIndex((waiter) => this.#fits(waiter.client));
    if (next < 0) return;
    const [waiter] = this.#waiting.splice(next, 1);
    clearTimeout(waiter!.timer);
    waiter!.wake(this.#take(waiter!.client));
  }
}

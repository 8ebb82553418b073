/**
 * The connections of the operator's listener, kept free for probes. Its slots are few
 * (MAX_ADMIN_CONNECTIONS) and anyone who reaches ADMIN_HOST may open sockets, so:
 *
 * - a connection that has not sent a complete request head within ADMIN_HEAD_WAIT_MS of opening
 *   is closed, and after an answer, one whose next request is not complete within the keep-alive
 *   time its answer announced (and Node's grace);
 * - when every slot is held, the connection that has waited longest without a request in
 *   progress is closed so that the newcomer is served; only when every slot has a request in
 *   progress is the newcomer refused;
 * - a request in progress has ADMIN_ANSWER_MS to be answered.
 *
 * So sockets that stay silent, or trickle a head byte by byte, delay no probe and hold a slot
 * for ADMIN_HEAD_WAIT_MS at most. The rules are kept here apart from the sockets: a connection is
 * anything that can be destroyed, and the timers are handed in, so tests can drive both.
 */

/** Operators' probes are few: a bound keeps a stray scanner from holding sockets. */
export const MAX_ADMIN_CONNECTIONS = 64;
/** A probe sends its head at once: a new connection that has not within this long is closed. */
export const ADMIN_HEAD_WAIT_MS = 1_500;
/** The keep-alive time answers announce (`Keep-Alive: timeout=5`), Node's default, as before. */
export const ADMIN_KEEP_ALIVE_MS = 5_000;
/** After an answer, the next request head must be complete within the keep-alive time and Node's grace. */
export const ADMIN_NEXT_REQUEST_WAIT_MS = ADMIN_KEEP_ALIVE_MS + 1_000;
/** A request in progress must be answered within this long: its checks are bounded well below it. */
export const ADMIN_ANSWER_MS = 10_000;

/** What the slots know of a connection: it can be closed. */
export interface AdminConnection {
  destroy(): void;
}

/** Calls `callback` after `ms` unless cancelled. */
export type Schedule = (callback: () => void, ms: number) => { cancel(): void };

/** The timers of node:timers, which keep no process alive. */
export const realTimers: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

export interface AdminConnectionLimits {
  readonly capacity: number;
  readonly headWaitMs: number;
  readonly nextRequestWaitMs: number;
  readonly answerMs: number;
}

export const ADMIN_CONNECTION_LIMITS: AdminConnectionLimits = Object.freeze({
  capacity: MAX_ADMIN_CONNECTIONS,
  headWaitMs: ADMIN_HEAD_WAIT_MS,
  nextRequestWaitMs: ADMIN_NEXT_REQUEST_WAIT_MS,
  answerMs: ADMIN_ANSWER_MS,
});

/** A connection with requests in progress: how many (pipelined ones count), and its answer deadline. */
interface Busy {
  requests: number;
  readonly deadline: { cancel(): void };
}

export class AdminConnections<C extends AdminConnection> {
  readonly #limits: AdminConnectionLimits;
  readonly #schedule: Schedule;
  /** Connections waiting for a request, in the order they began to wait: the first waited longest. */
  readonly #waiting = new Map<C, { cancel(): void }>();
  readonly #busy = new Map<C, Busy>();

  constructor(limits: AdminConnectionLimits = ADMIN_CONNECTION_LIMITS, schedule: Schedule = realTimers) {
    this.#limits = limits;
    this.#schedule = schedule;
  }

  /** Connections held. */
  get size(): number {
    return this.#waiting.size + this.#busy.size;
  }

  /**
   * A new connection: admitted, once the one that waited longest gave way if every slot is held;
   * destroyed at once, and false, when every slot has a request in progress.
   */
  admit(connection: C): boolean {
    if (this.size >= this.#limits.capacity) {
      const longest = this.#waiting.keys().next();
      if (longest.done) {
        connection.destroy();
        return false;
      }
      this.#close(longest.value);
    }
    this.#wait(connection, this.#limits.headWaitMs);
    return true;
  }

  /** A complete request head arrived on `connection`. */
  requestStarted(connection: C): void {
    const busy = this.#busy.get(connection);
    if (busy !== undefined) {
      busy.requests++;
      return;
    }
    const waiting = this.#waiting.get(connection);
    if (waiting === undefined) return;
    waiting.cancel();
    this.#waiting.delete(connection);
    this.#busy.set(connection, { requests: 1, deadline: this.#schedule(() => this.#close(connection), this.#limits.answerMs) });
  }

  /** An answer on `connection` ended (sent, or cut); with none left in progress it waits again, last in line. */
  requestEnded(connection: C): void {
    const busy = this.#busy.get(connection);
    if (busy === undefined || --busy.requests > 0) return;
    busy.deadline.cancel();
    this.#busy.delete(connection);
    this.#wait(connection, this.#limits.nextRequestWaitMs);
  }

  /** `connection` closed, whoever closed it: its slot is free. */
  closed(connection: C): void {
    this.#waiting.get(connection)?.cancel();
    this.#waiting.delete(connection);
    this.#busy.get(connection)?.deadline.cancel();
    this.#busy.delete(connection);
  }

  #wait(connection: C, ms: number): void {
    this.#waiting.set(connection, this.#schedule(() => this.#close(connection), ms));
  }

  #close(connection: C): void {
    this.closed(connection);
    connection.destroy();
  }
}

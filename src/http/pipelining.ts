/**
 * A bound on what one connection may have dispatched but not yet answered (README, "Limits").
 *
 * Node parses every pipelined request it has received and calls the listener for each, however
 * many answers are still unsent: one connection that sends thousands of requests and never reads
 * would have thousands of answers being built at once (hundreds of MiB, a descriptor each for
 * static files). Here, at most MAX_IN_FLIGHT_PER_CONNECTION requests of a connection run at
 * once; once that many run, the connection stops being read (its bytes wait in the kernel and
 * the client's send buffer), and requests Node had already parsed from the same read wait their
 * turn in order. Each answer that finishes lets the next one in; once none waits, reading
 * resumes. Nothing is refused or lost: answers still go out in request order (RFC 9112 9.3.2).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests of one connection being answered at once. Browsers do not pipeline, and a client
 * that does gains nothing from more: answers leave in order, one at a time.
 */
export const MAX_IN_FLIGHT_PER_CONNECTION = 16;

type Listener<Req extends IncomingMessage, Res extends ServerResponse> = (req: Req, res: Res) => void;

/** One connection's requests: how many run, which wait, whether reading is held. */
class ConnectionGate<Req extends IncomingMessage, Res extends ServerResponse> {
  #running = 0;
  /** Requests parsed while `limit` ran, in arrival order; `#next` is the first still waiting. */
  #waiting: [Req, Res][] = [];
  #next = 0;
  #holding = false;
  /** Whether a turn of the event loop is booked to run waiting requests. */
  #scheduled = false;
  readonly #socket: Socket;
  readonly #limit: number;
  readonly #listener: Listener<Req, Res>;
  readonly #onAnswered: (this: Res) => void;

  constructor(socket: Socket, limit: number, listener: Listener<Req, Res>, onAnswered: (this: Res) => void) {
    this.#socket = socket;
    this.#limit = limit;
    this.#listener = listener;
    this.#onAnswered = onAnswered;
    // Node resumes a socket it paused itself once its answers drain, and reading a request body
    // resumes it too: while this gate holds, it stops reading again before any byte is read.
    socket.on('resume', () => {
      if (this.#holding) socket.pause();
    });
    socket.once('close', () => this.#forget());
  }

  /** A request Node has parsed: it runs now, or waits for an earlier answer to finish. */
  admit(req: Req, res: Res): void {
    if (this.#running < this.#limit && this.#next === this.#waiting.length) return this.#run(req, res);
    this.#waiting.push([req, res]);
    this.#hold();
  }

  /**
   * An answer finished: the next waiting requests run on a later turn of the event loop, so that
   * a connection with thousands waiting never keeps other clients' requests waiting behind them
   * (written answers finish synchronously one after another).
   */
  answered(): void {
    this.#running--;
    if (this.#next < this.#waiting.length) {
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#runWaiting);
      }
    } else if (this.#holding && this.#running < this.#limit) {
      this.#release();
    }
  }

  /** Runs waiting requests up to the limit; reading resumes once none waits. */
  readonly #runWaiting = (): void => {
    this.#scheduled = false;
    while (this.#running < this.#limit && this.#next < this.#waiting.length) {
      const [req, res] = this.#waiting[this.#next]!;
      this.#waiting[this.#next++] = undefined as never; // the pair is collected once answered
      this.#run(req, res);
    }
    if (this.#next === this.#waiting.length) {
      this.#waiting = [];
      this.#next = 0;
      if (this.#holding && this.#running < this.#limit) this.#release();
    }
  };

  #run(req: Req, res: Res): void {
    // The connection closed while the request waited: no answer could reach the client.
    if (this.#socket.destroyed) return;
    this.#running++;
    if (this.#running >= this.#limit) this.#hold();
    // A response finishes once: `on` spares the wrapper `once` builds and removes per request.
    res.on('finish', this.#onAnswered);
    this.#listener(req, res);
  }

  #hold(): void {
    if (this.#holding) return;
    this.#holding = true;
    this.#socket.pause();
  }

  #release(): void {
    this.#holding = false;
    if (!this.#socket.destroyed) this.#socket.resume();
  }

  /** The connection closed: requests still waiting are never answered (Node aborts them). */
  #forget(): void {
    this.#waiting = [];
    this.#next = 0;
    this.#holding = false;
  }
}

/**
 * Wraps a request listener so that each connection runs at most `limit` requests at once.
 * The gates live in this wrapper, one per open connection, and go with their connection.
 */
export function boundPipelining<Req extends IncomingMessage, Res extends ServerResponse>(
  listener: Listener<Req, Res>,
  limit: number = MAX_IN_FLIGHT_PER_CONNECTION,
): Listener<Req, Res> {
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`limit must be a positive integer, got ${limit}`);
  const gates = new WeakMap<Socket, ConnectionGate<Req, Res>>();
  function onAnswered(this: Res): void {
    gates.get(this.req.socket)?.answered();
  }
  return (req, res) => {
    const socket = req.socket;
    let gate = gates.get(socket);
    if (gate === undefined) {
      gate = new ConnectionGate(socket, limit, listener, onAnswered);
      gates.set(socket, gate);
    }
    gate.admit(req, res);
  };
}

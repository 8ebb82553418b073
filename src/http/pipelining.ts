/**
 * A bound on what one connection may have dispatched but not yet answered (docs/http.md, "Limits").
 *
 * Node parses every pipelined request it has received and calls the listener for each, however
 * many answers are still unsent: one connection that sends thousands of requests and never reads
 * would have thousands of answers being built at once (hundreds of MiB, a descriptor each for
 * static files), and a few hundred such connections would keep every other client waiting while
 * their requests run. Here, at most MAX_IN_FLIGHT_PER_CONNECTION requests of a connection run at
 * once; once that many run, the connection stops being read (its bytes wait in the kernel and
 * the client's send buffer), and requests Node had already parsed from the same read wait their
 * turn in order, at most MAX_WAITING_PER_CONNECTION of them. Each answer that finishes lets the
 * next one in; once none waits, reading resumes.
 *
 * A connection that pipelines past the waiting bound is refused the rest: every request Node
 * parsed after the admitted ones gets a bare 503 with `Retry-After` (no listener runs for it),
 * and once those are out the connection is shut (the client reads to the end of the answers,
 * then sees it closed) and left to the stall sweep (`connections.ts`), which closes it once
 * nothing moves on it, however slowly its client reads. The client resends the
 * refused requests, on a new connection, as HTTP/1.1 lets it (RFC 9112 9.3.2, 9.6). Answering
 * them costs Node less than the alternative, closing with them pending: Node then aborts each
 * with an error and its stack, and keeps them all in memory until it does. No answer says
 * `Connection: close` either: Node would destroy the connection right after it, its unread
 * requests still in the system's buffer, and the reset that follows can cost the client answers
 * it was sent but has not read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests of one connection being answered at once. Browsers do not pipeline, and a client
 * that does gains nothing from more: answers leave in order, one at a time.
 */
export const MAX_IN_FLIGHT_PER_CONNECTION = 16;

/**
 * Requests of one connection parsed while 16 run, waiting for their turn. More than a client
 * that pipelines for speed needs; past it the rest are refused and the connection closed, so a
 * flood of requests costs the service a bounded amount of work per connection.
 */
export const MAX_WAITING_PER_CONNECTION = 32;

/** The head of the answer to a request refused past the bound: no body, and when to retry. */
const REFUSED_HEAD: readonly string[] = Object.freeze(['content-length', '0', 'retry-after', '1']);

type Listener<Req extends IncomingMessage, Res extends ServerResponse> = (req: Req, res: Res) => void;

/** One connection's requests: how many run, which wait, whether reading is held. */
class ConnectionGate<Req extends IncomingMessage, Res extends ServerResponse> {
  #running = 0;
  /** Requests parsed while `limit` ran, in arrival order; `#next` is the first still waiting. */
  #waiting: [Req, Res][] = [];
  #next = 0;
  #holding = false;
  /** Past the waiting bound: nothing more runs, the rest is refused, the connection closes. */
  #closing = false;
  /** Requests refused in the read being parsed now, answered once Node has parsed all of it. */
  #refused: Res[] = [];
  readonly #socket: Socket;
  readonly #limit: number;
  readonly #maxWaiting: number;
  readonly #listener: Listener<Req, Res>;
  readonly #onAnswered: (this: Res) => void;

  constructor(socket: Socket, bounds: PipelineBounds, listener: Listener<Req, Res>, onAnswered: (this: Res) => void) {
    this.#socket = socket;
    this.#limit = bounds.inFlight;
    this.#maxWaiting = bounds.waiting;
    this.#listener = listener;
    this.#onAnswered = onAnswered;
    // Node resumes a socket it paused itself once its answers drain, and reading a request body
    // resumes it too: while this gate holds, it stops reading again before any byte is read.
    socket.on('resume', () => {
      if (this.#holding) socket.pause();
    });
    socket.once('close', () => this.#forget());
  }

  /**
   * A request Node has parsed: it runs now, or waits for an earlier answer to finish, or, past
   * the waiting bound, is refused, as is every request after it.
   */
  admit(req: Req, res: Res): void {
    if (this.#closing) {
      this.#refused.push(res);
      return;
    }
    const waiting = this.#waiting.length - this.#next;
    if (this.#running < this.#limit && waiting === 0) return this.#run(req, res);
    if (waiting < this.#maxWaiting) {
      this.#waiting.push([req, res]);
      this.#hold();
      return;
    }
    this.#closing = true;
    this.#hold();
    this.#refused.push(res);
    // Node calls the listener for every request of a read before anything else runs: the
    // last of them is known once it is done.
    process.nextTick(this.#refuseParsed);
  }

  /**
   * Answers the refused requests, in order after the admitted ones (Node sends answers in
   * request order); the last one's end shuts the connection.
   */
  readonly #refuseParsed = (): void => {
    const refused = this.#refused;
    this.#refused = [];
    if (this.#socket.destroyed) return;
    refused[refused.length - 1]!.once('finish', () => this.#socket.end());
    for (const res of refused) {
      res.writeHead(503, REFUSED_HEAD as string[]);
      res.end();
    }
  };

  /**
   * An answer finished: the next waiting request runs now (at most MAX_WAITING_PER_CONNECTION
   * of them ever wait, so this is bounded work), and reading resumes once none waits. Running it
   * now rather than on a later turn lets a flooding connection reach its close, and Node free
   * the requests it parsed past the bound, before the next connection's bytes are read.
   */
  answered(): void {
    this.#running--;
    if (this.#next < this.#waiting.length) {
      const [req, res] = this.#waiting[this.#next]!;
      this.#waiting[this.#next++] = undefined as never; // the pair is collected once answered
      if (this.#next === this.#waiting.length) {
        this.#waiting = [];
        this.#next = 0;
      }
      this.#run(req, res);
    } else if (this.#holding && this.#running < this.#limit && !this.#closing) {
      this.#release();
    }
  }

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
    this.#refused = [];
    this.#holding = false;
  }
}

/** The bounds of one connection's pipeline. */
export interface PipelineBounds {
  /** Requests being answered at once (MAX_IN_FLIGHT_PER_CONNECTION). */
  readonly inFlight: number;
  /** Requests parsed and waiting for their turn (MAX_WAITING_PER_CONNECTION). */
  readonly waiting: number;
}

const DEFAULT_BOUNDS: Readonly<PipelineBounds> = { inFlight: MAX_IN_FLIGHT_PER_CONNECTION, waiting: MAX_WAITING_PER_CONNECTION };

/**
 * Wraps a request listener so that each connection runs at most `bounds.inFlight` requests at
 * once, with at most `bounds.waiting` more waiting. The gates live in this wrapper, one per open
 * connection, and go with their connection.
 */
export function boundPipelining<Req extends IncomingMessage, Res extends ServerResponse>(
  listener: Listener<Req, Res>,
  bounds: Partial<PipelineBounds> = {},
): Listener<Req, Res> {
  const { inFlight, waiting } = { ...DEFAULT_BOUNDS, ...bounds };
  if (!Number.isInteger(inFlight) || inFlight < 1) throw new TypeError(`inFlight must be a positive integer, got ${inFlight}`);
  if (!Number.isInteger(waiting) || waiting < 1) throw new TypeError(`waiting must be a positive integer, got ${waiting}`);
  const gates = new WeakMap<Socket, ConnectionGate<Req, Res>>();
  function onAnswered(this: Res): void {
    gates.get(this.req.socket)?.answered();
  }
  return (req, res) => {
    const socket = req.socket;
    let gate = gates.get(socket);
    if (gate === undefined) {
      gate = new ConnectionGate(socket, { inFlight, waiting }, listener, onAnswered);
      gates.set(socket, gate);
    }
    gate.admit(req, res);
  };
}

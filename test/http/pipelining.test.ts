/**
 * The pipelining gate (src/http/pipelining.ts) on its own, with a fake connection: which requests
 * of one connection are dispatched, and when the connection stops and starts being read. The
 * raw-socket tier (server-pipelining.test.ts) measures what this costs a real server; this pins
 * the bound itself, in milliseconds.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { boundPipelining, MAX_IN_FLIGHT_PER_CONNECTION, MAX_WAITING_PER_CONNECTION, type PipelineBounds } from '../../src/http/pipelining.js';

/** docs/http.md, "Limits": 16 requests of one connection being answered at once, 32 more waiting. */
const BOUND = 16;
const WAITING = 32;

/** What the gate uses of a socket: pause, resume, `destroyed`, and its 'resume' and 'close' events. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  paused = false;
  pauses = 0;
  resumes = 0;
  /** Whether the write side was shut (`end`). */
  ended = false;

  end(): this {
    this.ended = true;
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }

  pause(): this {
    this.pauses++;
    this.paused = true;
    return this;
  }

  resume(): this {
    this.resumes++;
    this.paused = false;
    this.emit('resume');
    return this;
  }
}

/** A response as the gate sees it: its request (for the socket) and a 'finish' event. */
class FakeResponse extends EventEmitter {
  /** The status and head it was answered with without the listener (a refusal), if any. */
  refusedWith: { status: number; head: readonly string[]; ended: boolean } | undefined;

  constructor(readonly req: FakeRequest) {
    super();
  }

  /** The answer is written: what Node's ServerResponse emits last. */
  finish(): void {
    this.emit('finish');
  }

  writeHead(status: number, head: readonly string[]): this {
    this.refusedWith = { status, head, ended: false };
    return this;
  }

  end(): this {
    this.refusedWith!.ended = true;
    return this;
  }
}

interface FakeRequest {
  readonly socket: FakeSocket;
  readonly n: number;
}

/** One request the listener was called with, and whether reading was held at that moment. */
interface Dispatch {
  readonly n: number;
  readonly res: FakeResponse;
  readonly pausedAtDispatch: boolean;
}

/** A gated listener that records what it is called with, and a way to send requests to it. */
function gated(bounds?: Partial<PipelineBounds>) {
  const dispatched: Dispatch[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const fake = req as unknown as FakeRequest;
    dispatched.push({ n: fake.n, res: res as unknown as FakeResponse, pausedAtDispatch: fake.socket.paused });
  };
  const gate = boundPipelining(listener, bounds);
  let sent = 0;
  /** Every response made, dispatched or not, by request number less one. */
  const responses: FakeResponse[] = [];
  /** `count` requests parsed from `socket`, in order, as Node hands them to the server's listener. */
  const send = (socket: FakeSocket, count: number) => {
    for (let i = 0; i < count; i++) {
      const req: FakeRequest = { socket, n: ++sent };
      const res = new FakeResponse(req);
      responses.push(res);
      gate(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    }
  };
  return { dispatched, send, responses };
}

describe('boundPipelining', () => {
  it('bounds a connection at 16 requests by default, 32 more waiting, as docs/http.md, "Limits" says', () => {
    assert.equal(MAX_IN_FLIGHT_PER_CONNECTION, BOUND);
    assert.equal(MAX_WAITING_PER_CONNECTION, WAITING);
  });

  it('admits 16 running and 32 waiting; refuses every later request of the read with a bare 503, and shuts the connection once all are answered', async () => {
    const { dispatched, send, responses } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND + WAITING + 1000);
    assert.equal(dispatched.length, BOUND);
    assert.ok(responses.every((res) => res.refusedWith === undefined), 'refused once Node has parsed the whole read');
    await Promise.resolve().then(() => new Promise((resolve) => process.nextTick(resolve)));
    const refused = responses.slice(BOUND + WAITING);
    assert.ok(refused.every((res) => res.refusedWith?.status === 503 && res.refusedWith.ended), 'every request past the 48th is refused');
    assert.deepEqual(refused[0]!.refusedWith!.head, ['content-length', '0', 'retry-after', '1']);
    assert.ok(responses.slice(0, BOUND + WAITING).every((res) => res.refusedWith === undefined));
    // The admitted answers finish: the 48 admitted run, in order, no other; then the refusals go out.
    for (let i = 0; i < dispatched.length; i++) dispatched[i]!.res.finish();
    assert.deepEqual(dispatched.map((d) => d.n), Array.from({ length: BOUND + WAITING }, (_, i) => i + 1));
    assert.equal(socket.ended, false, 'the refusals are not out yet');
    refused.forEach((res) => res.finish());
    assert.equal(socket.ended, true, 'the write side is shut after the last answer');
    assert.equal(socket.resumes, 0, 'and the connection is not read again');
    assert.equal(socket.destroyed, false, 'it is left open for its client to read to the end (the stall sweep closes it)');
  });

  it('keeps a connection within the bounds open: 16 running and 32 waiting, all answered, none refused or shut', () => {
    const { dispatched, send, responses } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND + WAITING);
    for (let i = 0; i < dispatched.length; i++) dispatched[i]!.res.finish();
    assert.equal(dispatched.length, BOUND + WAITING);
    assert.ok(responses.every((res) => res.refusedWith === undefined));
    assert.equal(socket.ended, false);
    assert.equal(socket.paused, false, 'reading resumes');
  });

  it('refuses bounds that are not positive integers', () => {
    for (const bounds of [{ inFlight: 0 }, { waiting: 0 }, { inFlight: 1.5 }, { waiting: Number.NaN }]) {
      assert.throws(() => boundPipelining(() => {}, bounds), TypeError, JSON.stringify(bounds));
    }
  });

  it('dispatches 16 requests of one connection at once and holds the 17th', () => {
    const { dispatched, send } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND + 1);
    assert.deepEqual(dispatched.map((d) => d.n), Array.from({ length: BOUND }, (_, i) => i + 1));
  });

  it('stops reading the connection as the 16th request is dispatched: not at the 15th, not at the 17th', () => {
    const { dispatched, send } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND - 1);
    assert.equal(socket.pauses, 0, 'reading goes on while fewer than 16 run');
    send(socket, 1);
    assert.equal(socket.pauses, 1);
    assert.equal(dispatched.at(-1)!.pausedAtDispatch, true, 'held before the 16th request runs');
    assert.equal(dispatched.at(-2)!.pausedAtDispatch, false);
    send(socket, 1);
    assert.equal(socket.pauses, 1, 'already held: the 17th waits without pausing again');
  });

  it('resumes reading as soon as one of the 16 running answers finishes', () => {
    const { dispatched, send } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND);
    assert.equal(socket.paused, true);
    dispatched[0]!.res.finish();
    assert.equal(socket.resumes, 1);
    assert.equal(socket.paused, false);
  });

  it('lets the waiting 17th in as soon as an answer finishes, and resumes reading once none waits and fewer than 16 run', () => {
    const { dispatched, send } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND + 1);
    assert.equal(dispatched.length, BOUND);
    dispatched[0]!.res.finish();
    assert.equal(dispatched.at(-1)!.n, BOUND + 1);
    assert.equal(socket.resumes, 0, '16 run again: still held');
    assert.equal(socket.paused, true);
    dispatched[1]!.res.finish();
    assert.equal(socket.resumes, 1);
    assert.equal(socket.paused, false);
  });

  it('pauses again when something else resumes a held connection (Node does, once its answers drain)', () => {
    const { send } = gated();
    const socket = new FakeSocket();
    send(socket, BOUND);
    socket.resume();
    assert.equal(socket.paused, true);
    assert.equal(socket.pauses, 2);
  });

  it('counts each connection on its own: a held one does not hold another', () => {
    const { dispatched, send } = gated();
    const busy = new FakeSocket();
    const other = new FakeSocket();
    send(busy, BOUND + 3);
    send(other, 2);
    assert.equal(dispatched.length, BOUND + 2);
    assert.equal(other.pauses, 0);
  });

  it('takes another bound: with 2, the second request holds reading and the third waits', () => {
    const { dispatched, send } = gated({ inFlight: 2 });
    const socket = new FakeSocket();
    send(socket, 3);
    assert.deepEqual(dispatched.map((d) => d.pausedAtDispatch), [false, true]);
  });
});

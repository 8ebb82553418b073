import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import {
  ADMIN_ANSWER_MS,
  ADMIN_CONNECTION_LIMITS,
  ADMIN_HEAD_WAIT_MS,
  ADMIN_NEXT_REQUEST_WAIT_MS,
  AdminConnections,
  MAX_ADMIN_CONNECTIONS,
  type Schedule,
} from '../../src/ops/admin-connections.js';
import { startAdminListener, type AdminListener } from '../../src/ops/listener.js';
import { eventually } from '../helpers/eventually.js';
import { send } from '../helpers/http.js';
import { converse, headerOf, waitFor } from '../helpers/sockets.js';

interface FakeTimer {
  readonly callback: () => void;
  readonly ms: number;
  cancelled: boolean;
}

/** Timers that fire only when a test says so. */
function fakeTimers() {
  const all: FakeTimer[] = [];
  const schedule: Schedule = (callback, ms) => {
    const timer: FakeTimer = { callback, ms, cancelled: false };
    all.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  };
  return {
    schedule,
    /** The timers not cancelled nor fired, oldest first. */
    pending: () => all.filter((t) => !t.cancelled),
    fire(timer: FakeTimer) {
      timer.cancelled = true;
      timer.callback();
    },
  };
}

class FakeConnection {
  destroyed = false;
  constructor(readonly name: string) {}
  destroy(): void {
    this.destroyed = true;
  }
}

function slots(capacity = MAX_ADMIN_CONNECTIONS) {
  const timers = fakeTimers();
  const connections = new AdminConnections<FakeConnection>({ ...ADMIN_CONNECTION_LIMITS, capacity }, timers.schedule);
  const admitted = (count: number, prefix = 'c') =>
    Array.from({ length: count }, (_, i) => {
      const connection = new FakeConnection(`${prefix}${i}`);
      assert.equal(connections.admit(connection), true, connection.name);
      return connection;
    });
  return { connections, timers, admitted };
}

describe('AdminConnections', () => {
  it('holds MAX_ADMIN_CONNECTIONS (64) without closing any; the 65th closes the one that waited longest, and is served', () => {
    const { connections, admitted } = slots();
    const held = admitted(MAX_ADMIN_CONNECTIONS);
    assert.equal(MAX_ADMIN_CONNECTIONS, 64);
    assert.deepEqual(held.filter((c) => c.destroyed).map((c) => c.name), []);
    const newcomer = new FakeConnection('newcomer');
    assert.equal(connections.admit(newcomer), true);
    assert.deepEqual(held.filter((c) => c.destroyed).map((c) => c.name), ['c0']);
    assert.equal(newcomer.destroyed, false);
    assert.equal(connections.size, MAX_ADMIN_CONNECTIONS);
  });

  it('never closes a connection with a request in progress to make room: the one that waited longest without one gives way', () => {
    const { connections, admitted } = slots(3);
    const [a, b, c] = admitted(3);
    connections.requestStarted(a!);
    connections.admit(new FakeConnection('newcomer'));
    assert.deepEqual([a, b, c].map((x) => x!.destroyed), [false, true, false]);
  });

  it('refuses the newcomer, closing it at once, when every slot has a request in progress', () => {
    const { connections, admitted } = slots();
    const held = admitted(MAX_ADMIN_CONNECTIONS);
    for (const connection of held) connections.requestStarted(connection);
    const newcomer = new FakeConnection('newcomer');
    assert.equal(connections.admit(newcomer), false);
    assert.equal(newcomer.destroyed, true);
    assert.equal(held.some((c) => c.destroyed), false);
  });

  it('puts a connection whose answer ended last in line', () => {
    const { connections, admitted } = slots(2);
    const [a, b] = admitted(2);
    connections.requestStarted(a!);
    connections.requestEnded(a!);
    connections.admit(new FakeConnection('newcomer'));
    assert.deepEqual([a!.destroyed, b!.destroyed], [false, true]);
  });

  it('keeps a connection busy until the last of its pipelined answers ends', () => {
    const { connections, admitted } = slots(1);
    const [a] = admitted(1);
    connections.requestStarted(a!);
    connections.requestStarted(a!);
    connections.requestEnded(a!);
    assert.equal(connections.admit(new FakeConnection('refused')), false);
    connections.requestEnded(a!);
    assert.equal(connections.admit(new FakeConnection('served')), true);
    assert.equal(a!.destroyed, true);
  });

  it('frees the slot of a connection that closed, and forgets its timer', () => {
    const { connections, timers, admitted } = slots(1);
    const [a] = admitted(1);
    connections.closed(a!);
    assert.equal(connections.size, 0);
    assert.deepEqual(timers.pending(), []);
    assert.equal(connections.admit(new FakeConnection('next')), true);
    assert.equal(a!.destroyed, false);
  });

  it('closes a connection with no complete head once ADMIN_HEAD_WAIT_MS (1.5 s) is up', () => {
    const { connections, timers, admitted } = slots();
    const [a] = admitted(1);
    const [wait] = timers.pending();
    assert.equal(wait!.ms, ADMIN_HEAD_WAIT_MS);
    assert.equal(ADMIN_HEAD_WAIT_MS, 1_500);
    timers.fire(wait!);
    assert.equal(a!.destroyed, true);
    assert.equal(connections.size, 0);
  });

  it('gives a request in progress ADMIN_ANSWER_MS, and the next request the keep-alive time and its grace', () => {
    const { connections, timers, admitted } = slots();
    const [a] = admitted(1);
    connections.requestStarted(a!);
    assert.deepEqual(timers.pending().map((t) => t.ms), [ADMIN_ANSWER_MS]);
    connections.requestEnded(a!);
    assert.deepEqual(timers.pending().map((t) => t.ms), [ADMIN_NEXT_REQUEST_WAIT_MS]);
    assert.equal(ADMIN_NEXT_REQUEST_WAIT_MS, 6_000);
    connections.requestStarted(a!);
    timers.fire(timers.pending()[0]!);
    assert.equal(a!.destroyed, true, 'an answer that never ends closes its connection');
  });
});

/** A listener whose connection timers fire only when the test says so, and the client sockets it opens. */
async function startWithFakeTimers() {
  const timers = fakeTimers();
  const connections = new AdminConnections<Socket>(ADMIN_CONNECTION_LIMITS, timers.schedule);
  const admin: AdminListener = await startAdminListener('127.0.0.1', 0, {
    readiness: async () => ({ ready: true, checks: { log_dir: 'ok' } }),
    metricsPage: async () => 'up 1\n',
    metricsContentType: 'text/plain; version=0.0.4; charset=utf-8',
  }, connections);
  const opened: Socket[] = [];
  /** Opens `count` sockets, each writing `first` if given; resolves once the listener holds them all. */
  const hold = async (count: number, first?: string) => {
    for (let i = 0; i < count; i++) {
      const socket = connect(Number(new URL(admin.url).port), '127.0.0.1');
      socket.on('error', () => {});
      opened.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      if (first !== undefined) socket.write(first);
    }
    await eventually(`the listener holds ${count} connections`, () => connections.size, (size) => size === count);
  };
  const stop = async () => {
    for (const socket of opened) socket.destroy();
    await admin.close();
  };
  return { admin, connections, timers, opened, hold, stop };
}

const closedBy = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('the operator\'s listener, full', () => {
  const holders: [string, string | undefined][] = [
    ['64 idle connections', undefined],
    ['64 connections with half a request head', 'GET /healthz HTTP/1.1\r\nHo'],
  ];
  for (const [held, first] of holders) {
    it(`answers /healthz and /readyz 200 while ${held} are held, closing the one that waited longest`, async () => {
      const listener = await startWithFakeTimers();
      try {
        await listener.hold(MAX_ADMIN_CONNECTIONS, first);
        const health = await send(listener.admin.url, 'GET', '/healthz');
        assert.equal(health.status, 200);
        assert.deepEqual(JSON.parse(health.body), { status: 'alive' });
        await closedBy(listener.opened[0]!);
        const ready = await send(listener.admin.url, 'GET', '/readyz');
        assert.equal(ready.status, 200);
        assert.deepEqual(JSON.parse(ready.body), { ready: true, checks: { log_dir: 'ok' } });
        assert.equal(listener.opened.slice(2).some((s) => s.destroyed), false, 'only the longest waiting gave way');
      } finally {
        await listener.stop();
      }
    });
  }

  it('answers a probe as before: the same head, keep-alive announced as 5 s', async () => {
    const listener = await startWithFakeTimers();
    try {
      const c = await converse(listener.admin.url, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const raw = await waitFor(c, /\r\n\r\n\{"status":"alive"\}\n$/);
      assert.match(raw, /^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\ncache-control: no-store\r\ncontent-length: 19\r\nDate: [^\r]+\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n/);
      assert.equal(headerOf(raw, 'keep-alive'), 'timeout=5');
      c.socket.destroy();
    } finally {
      await listener.stop();
    }
  });

  it('closes a connection that sent no complete head once its wait is over', async () => {
    const listener = await startWithFakeTimers();
    try {
      await listener.hold(1, 'GET /healthz HTTP/1.1\r\n');
      const [wait] = listener.timers.pending();
      assert.equal(wait!.ms, ADMIN_HEAD_WAIT_MS);
      listener.timers.fire(wait!);
      await closedBy(listener.opened[0]!);
      assert.equal(listener.connections.size, 0);
    } finally {
      await listener.stop();
    }
  });
});

/**
 * The operator's listener against real sockets and real time (the raw-socket tier): connections
 * that send nothing, or trickle a head, are closed within ADMIN_HEAD_WAIT_MS, and probes stay
 * prompt while every slot is taken by them again and again.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_HEAD_WAIT_MS, ADMIN_NEXT_REQUEST_WAIT_MS, MAX_ADMIN_CONNECTIONS } from '../../src/ops/admin-connections.js';
import { startAdminListener, type AdminListener } from '../../src/ops/listener.js';
import { send } from '../helpers/http.js';
import { converse, waitFor } from '../helpers/sockets.js';

/** A probe is prompt when it is answered within this long, whatever holds the other slots. */
const PROMPT_MS = 1_000;
/** The margin allowed past a deadline for a loaded machine. */
const SLACK_MS = 1_000;

const HEAD = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nUser-Agent: a-slow-client\r\n\r\n';

describe('the operator\'s listener, in real time', () => {
  let admin: AdminListener;
  before(async () => {
    admin = await startAdminListener('127.0.0.1', 0, {
      readiness: async () => ({ ready: true, checks: { log_dir: 'ok' } }),
      metricsPage: async () => 'up 1\n',
      metricsContentType: 'text/plain',
    });
  });
  after(() => admin.close());

  it('closes a connection that sends nothing after ADMIN_HEAD_WAIT_MS (1.5 s), well before 2.5 s', async () => {
    const c = await converse(admin.url);
    const { afterMs } = await c.closed;
    assert.ok(afterMs >= ADMIN_HEAD_WAIT_MS - 100 && afterMs <= ADMIN_HEAD_WAIT_MS + SLACK_MS, `closed after ${afterMs} ms`);
    assert.equal(c.received(), '');
  });

  it('closes a connection that trickles its head a byte every 100 ms, before the head is complete', async () => {
    const c = await converse(admin.url);
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < HEAD.length && !c.socket.destroyed) c.socket.write(HEAD[sent++]!);
    }, 100);
    try {
      const { afterMs } = await c.closed;
      assert.ok(afterMs <= ADMIN_HEAD_WAIT_MS + SLACK_MS, `closed after ${afterMs} ms`);
      assert.ok(sent < HEAD.length, `the whole head went out (${sent} bytes)`);
      assert.equal(c.received(), '');
    } finally {
      clearInterval(trickle);
    }
  });

  const holders: [string, (socket: Socket) => () => void][] = [
    ['idle', () => () => {}],
    [
      'trickling a head byte by byte',
      (socket) => {
        let sent = 0;
        const timer = setInterval(() => {
          if (sent < HEAD.length && !socket.destroyed) socket.write(HEAD[sent++]!);
        }, 50);
        return () => clearInterval(timer);
      },
    ],
  ];
  for (const [how, behave] of holders) {
    it(`answers /healthz and /readyz promptly for 3 s while 64 connections ${how} are held and reopened`, async () => {
      const port = Number(new URL(admin.url).port);
      let holding = true;
      const stops = new Set<() => void>();
      const sockets = new Set<Socket>();
      const open = (): void => {
        const socket = connect(port, '127.0.0.1');
        sockets.add(socket);
        socket.on('error', () => {});
        const stop = behave(socket);
        stops.add(stop);
        socket.once('close', () => {
          stop();
          stops.delete(stop);
          sockets.delete(socket);
          if (holding) open();
        });
      };
      for (let i = 0; i < MAX_ADMIN_CONNECTIONS; i++) open();
      try {
        await sleep(200);
        const started = Date.now();
        while (Date.now() - started < 3_000) {
          for (const path of ['/healthz', '/readyz']) {
            const asked = Date.now();
            const res = await send(admin.url, 'GET', path);
            const tookMs = Date.now() - asked;
            assert.equal(res.status, 200, `${path}: ${res.status}`);
            assert.ok(tookMs <= PROMPT_MS, `${path} answered after ${tookMs} ms`);
          }
          await sleep(200);
        }
      } finally {
        holding = false;
        for (const stop of stops) stop();
        for (const socket of sockets) socket.destroy();
      }
    });
  }

  it('keeps an answered keep-alive connection as before: open past the head wait, closed after the keep-alive time and its grace', async () => {
    const c = await converse(admin.url, HEAD);
    await waitFor(c, /\{"status":"alive"\}\n$/);
    const closedEarly = await Promise.race([c.closed.then(() => true), sleep(ADMIN_HEAD_WAIT_MS + 500).then(() => false)]);
    assert.equal(closedEarly, false, 'closed within the head wait of an answered connection');
    const { afterMs } = await c.closed;
    assert.ok(afterMs <= ADMIN_NEXT_REQUEST_WAIT_MS + SLACK_MS, `closed after ${afterMs} ms`);
  });
});

/**
 * One fuzz connection: writes a case's bytes (whole or in pieces, maybe half-closing), reads
 * everything the server sends, and decides when it has seen enough: when the model's requests
 * are all answered on a connection that stays open, when the server closes, or at the deadline.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestModel } from './request-model.js';
import { parseResponseStream } from './response-stream.js';

export interface Exchange {
  readonly data: Buffer;
  /** The server closed (FIN or reset). */
  readonly closed: boolean;
  readonly reset: boolean;
  /** The deadline passed with the server neither done nor closed. */
  readonly timedOut: boolean;
  readonly ms: number;
}

/** How long to wait for an early answer to a request whose body never completes. */
const STALL_GRACE_MS = 300;

export interface ExchangeOptions {
  readonly port: number;
  readonly text: string;
  readonly pieces: readonly number[];
  readonly pauseMs: number;
  readonly halfClose: boolean;
  readonly model: RequestModel;
  /** After the last byte is written. */
  readonly deadlineMs: number;
}

export function runExchange(o: ExchangeOptions): Promise<Exchange> {
  const started = performance.now();
  const methods = [...o.model.requests.map((r) => r.method), ...o.model.methodsBeyond];
  const socket = net.connect(o.port, '127.0.0.1');
  socket.setNoDelay(true);
  const chunks: Buffer[] = [];
  let closed = false;
  let reset = false;
  let finished = false;
  let writing = true;
  let graceTimer: NodeJS.Timeout | undefined;
  let deadlineTimer: NodeJS.Timeout | undefined;

  return new Promise((resolve) => {
    const finish = (timedOut: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(graceTimer);
      clearTimeout(deadlineTimer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), closed, reset, timedOut, ms: performance.now() - started });
    };

    /** Whether the answers so far let the client hang up without waiting for the server. */
    const review = () => {
      if (finished || writing || closed) return;
      const parsed = parseResponseStream(Buffer.concat(chunks), methods, false);
      if (parsed.error !== undefined) return finish(false);
      const saidClose = parsed.responses.some((r) => (r.fields.get('connection') ?? []).some((v) => /close/i.test(v)));
      if (saidClose || o.halfClose) return; // the server must close
      const { end, requests } = o.model;
      const answered = parsed.responses.length;
      if (end === 'open' && answered >= requests.length && parsed.rest.length === 0) return finish(false);
      if (end === 'close' || end === 'refuse') return; // the server must close
      const enough = end === 'stall' || end === 'unsure' ? requests.length - 1 : requests.length;
      if ((end === 'stall' || end === 'partial' || end === 'unsure') && answered >= enough && graceTimer === undefined) {
        graceTimer = setTimeout(() => finish(false), STALL_GRACE_MS);
      }
    };

    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      review();
    });
    socket.on('end', () => {
      closed = true;
      finish(false);
    });
    socket.on('close', () => {
      closed = true;
      finish(false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') reset = true;
      closed = true;
      finish(false);
    });

    socket.once('connect', async () => {
      let at = 0;
      for (const size of o.pieces) {
        if (finished || closed) break;
        socket.write(Buffer.from(o.text.slice(at, at + size), 'latin1'));
        at += size;
        if (o.pauseMs > 0) await sleep(o.pauseMs);
      }
      if (o.halfClose && !finished && !closed) socket.end();
      writing = false;
      deadlineTimer = setTimeout(() => finish(true), o.deadlineMs);
      review();
    });
  });
}

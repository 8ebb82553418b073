/**
 * What became of each request, told once its answer ends (sent whole, or cut by the client
 * going away): the access log writes it as a line, the metrics count it. The app calls the
 * watch once per request, after its context is resolved; the parser's refusals, which never
 * reach the app, are told through `refused`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { headerText, unmapV4, type RequestContext, answeredBodyBytes } from '../http/index.js';
import type { AccessRecord } from '../log/index.js';
import type { WatchRequest } from '../app/index.js';

/** Whoever wants to know: the access log, the request metrics. */
export type OutcomeListener = (outcome: AccessRecord) => void;

/** A request the parser refused: answered with `status` on the raw socket, never seen by the app. */
export interface Refusal {
  readonly peer: string | undefined;
  readonly status: number;
  readonly receivedAt: number;
}

export interface OutcomeWatch {
  readonly watch: WatchRequest;
  /** Tells of a parser refusal; returns the request id its raw answer carries. */
  refused(refusal: Refusal): string;
}

/** `worker`: the cluster worker's id, 0 outside a cluster; `newRequestId` names refusals. */
export function createOutcomeWatch(listeners: readonly OutcomeListener[], worker: number, newRequestId: () => string): OutcomeWatch {
  const tell = (outcome: AccessRecord) => {
    for (const listener of listeners) listener(outcome);
  };
  return {
    watch(ctx, req, res) {
      const startedAt = performance.now();
      // A response closes once: `on` spares the wrapper `once` builds per request.
      res.on('close', () => tell(outcomeOf(ctx, req, res, performance.now() - startedAt, worker)));
    },
    refused({ peer, status, receivedAt }) {
      const requestId = newRequestId();
      tell({
        time: receivedAt,
        requestId,
        clientIp: unmapV4(peer ?? '-'),
        method: '-',
        routedMethod: '-',
        target: '-',
        protocol: '-',
        status,
        bytes: 0,
        durationMs: 0,
        userAgent: undefined,
        referer: undefined,
        subject: undefined,
        worker,
        completed: true,
      });
      return requestId;
    },
  };
}

function outcomeOf(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, durationMs: number, worker: number): AccessRecord {
  return {
    time: ctx.receivedAt,
    requestId: ctx.requestId,
    clientIp: ctx.clientIp,
    method: ctx.originalMethod,
    routedMethod: ctx.method,
    target: ctx.target,
    protocol: protocolOf(req),
    status: res.headersSent ? res.statusCode : 0,
    bytes: answeredBodyBytes(res),
    durationMs,
    // As received: the access log reads it as UTF-8 only when it is more than ASCII.
    userAgent: headerText(req.headers['user-agent']),
    referer: ctx.referer,
    subject: ctx.attributes['security.subject'],
    worker,
    completed: res.writableFinished,
  };
}

/**
 * The request's protocol for its record: a constant for each version that is answered, so the
 * common path builds no text. Node's HTTP/1 parser also takes `HTTP/0.9` and `HTTP/2.0` request
 * lines, which the app refuses as unsupported: those are written as sent, and only a stream of an
 * h2 connection (`node:http2`'s request has it) is `HTTP/2`.
 */
export function protocolOf(req: IncomingMessage): AccessRecord['protocol'] {
  const major = req.httpVersionMajor;
  const minor = req.httpVersionMinor;
  if (major === 1) {
    if (minor === 1) return 'HTTP/1.1';
    if (minor === 0) return 'HTTP/1.0';
  } else if (major === 2 && minor === 0 && (req as { readonly stream?: object }).stream !== undefined) {
    return 'HTTP/2';
  }
  return `HTTP/${major}.${minor}`;
}

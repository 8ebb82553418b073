/**
 * What the operator sees of one serving process: its access log, and, with ADMIN_PORT, its
 * metrics and readiness (`process-admin.ts`, loaded only then), served on the operator's listener
 * or, in a cluster worker, reported to the primary that serves it. With ACCESS_LOG=0 and no
 * ADMIN_PORT, none of it exists, none of it is loaded (the request watch in
 * `request-outcome.ts` and `node:perf_hooks` behind it included), and requests pay nothing for it.
 */
import type { Server } from 'node:http';
import type { AdminListener } from './listener.js';
import type { Config } from '../config/index.js';
import type { ServiceDocumentSource } from '../store/index.js';
import type { AccessLog, LineCounts } from '../log/index.js';
import type { PosterService } from '../poster/index.js';
import type { ProcessAdmin } from './process-admin.js';
import type { OutcomeListener, OutcomeWatch } from './request-outcome.js';

/** Where this process's metrics and readiness go: its own listener, the cluster primary, or nowhere. */
export type AdminRole = 'listen' | 'report' | 'off';

export interface OperabilityOptions {
  readonly config: Config;
  /** The error log's line counts, when it is a file (tests log to memory). */
  readonly errorLogLines: (() => LineCounts) | undefined;
  readonly accessLog: AccessLog | undefined;
  readonly role: AdminRole;
  /** The cluster worker's id, 0 outside a cluster. */
  readonly worker: number;
  readonly serviceDocument: ServiceDocumentSource;
  readonly posters: PosterService | undefined;
  /** True once the process stops: readiness fails from that moment. */
  readonly draining: () => boolean;
  /** The process's source of request ids (refusals get theirs here). */
  readonly newRequestId: () => string;
}

export interface Operability {
  /** Told of every request's outcome; undefined when nobody listens (no access log, no metrics). */
  readonly outcomes: OutcomeWatch | undefined;
  /** Starts counting the server's connections and, with role `listen`, the operator's listener. */
  start(server: Server): Promise<AdminListener | undefined>;
  /** Lines queued reach the access log file. */
  flush(): Promise<void>;
  /** Stops the listener, the reports and the monitors (after the service stopped serving). */
  close(): Promise<void>;
}

export async function createOperability(options: OperabilityOptions): Promise<Operability> {
  const { accessLog, role } = options;
  const logLines: Record<string, () => LineCounts> = {};
  if (options.errorLogLines !== undefined) logLines.error = options.errorLogLines;
  if (accessLog !== undefined) logLines.access = () => accessLog.lineCounts();
  const admin: ProcessAdmin | undefined = role === 'off'
    ? undefined
    : (await import('./process-admin.js')).createProcessAdmin({ ...options, logLines, role });
  const listeners: OutcomeListener[] = [];
  if (accessLog !== undefined) listeners.push((outcome) => accessLog.record(outcome));
  if (admin !== undefined) listeners.push(admin.metrics.answered);
  // Imported only when somebody listens: a start without either loads none of it.
  const outcomes = listeners.length === 0
    ? undefined
    : (await import('./request-outcome.js')).createOutcomeWatch(listeners, options.worker, options.newRequestId);
  return {
    outcomes,
    start: (server) => admin?.start(server) ?? Promise.resolve(undefined),
    flush: () => accessLog?.flush() ?? Promise.resolve(),
    close: () => admin?.close() ?? Promise.resolve(),
  };
}

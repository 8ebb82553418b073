/**
 * What the operator sees of one serving process: its access log, its metrics and its readiness,
 * served on the operator's listener (ADMIN_PORT) or, in a cluster worker, reported to the
 * primary that serves it. With ACCESS_LOG=0 and no ADMIN_PORT, none of it exists and requests
 * pay nothing for it.
 */
import { access, constants } from 'node:fs/promises';
import type { Server } from 'node:http';
import { reportToPrimary, runChecks, startAdminListener, type AdminReport, type AdminListener, type ReadinessCheck, type ReadinessReport } from './admin.js';
import type { Config } from './config.js';
import type { ServiceDocumentSource } from './entry-point.js';
import { createAccessLog, type AccessLog, type LineCounts } from './log.js';
import { EXPOSITION_CONTENT_TYPE, renderExposition } from './metrics.js';
import type { PosterService } from './poster/service.js';
import { createOutcomeWatch, type OutcomeListener, type OutcomeWatch } from './request-outcome.js';
import { createSecretMasker } from './secrets.js';
import { countConnections, createServiceMetrics, type ServiceMetrics } from './service-metrics.js';

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
  /** The metrics, when the operator's listener (here or at the primary) is on. */
  readonly metrics: ServiceMetrics | undefined;
  /** Starts counting the server's connections and, with role `listen`, the operator's listener. */
  start(server: Server): Promise<AdminListener | undefined>;
  /** Lines queued reach the access log file. */
  flush(): Promise<void>;
  /** Stops the listener, the reports and the monitors (after the service stopped serving). */
  close(): Promise<void>;
}

/** The access log the settings describe, or none with ACCESS_LOG=0. */
export function createConfiguredAccessLog(config: Config, clock?: () => number): AccessLog | undefined {
  if (!config.accessLog) return undefined;
  return createAccessLog({
    dir: config.logDir,
    appEnv: config.appEnv,
    timeZone: config.logTimeZone,
    maxFiles: config.logMaxFiles,
    maxBytes: config.logMaxBytes,
    clock,
    mask: createSecretMasker(config),
  });
}

export function createOperability(options: OperabilityOptions): Operability {
  const { config, accessLog, role, posters } = options;
  let openConnections = () => 0;
  const logLines: Record<string, () => LineCounts> = {};
  if (options.errorLogLines !== undefined) logLines.error = options.errorLogLines;
  if (accessLog !== undefined) logLines.access = () => accessLog.lineCounts();
  const metrics = role === 'off' ? undefined : createServiceMetrics({
    logLines,
    openConnections: () => openConnections(),
    posters: posters && {
      queueDepth: () => posters.pool.queueDepth,
      storeBytes: posters.storeBytes,
      storeLimit: config.posterMaxBytes,
      jwtCacheHits: posters.jwtCacheHits,
    },
  });
  if (metrics !== undefined) posters?.pool.watchRenders(metrics.rendered);
  const listeners: OutcomeListener[] = [];
  if (accessLog !== undefined) listeners.push((outcome) => accessLog.record(outcome));
  if (metrics !== undefined) listeners.push(metrics.answered);
  const outcomes = listeners.length === 0 ? undefined : createOutcomeWatch(listeners, options.worker, options.newRequestId);
  const checks = readinessChecks(options);
  const readiness = (): Promise<ReadinessReport> => runChecks(checks);
  let listener: AdminListener | undefined;
  let reports: { stop(): void } | undefined;
  return {
    outcomes,
    metrics,
    async start(server) {
      if (metrics === undefined) return undefined;
      openConnections = countConnections(server);
      if (role === 'report') {
        reports = reportToPrimary(
          (message: AdminReport) => process.send?.(message),
          (handle) => process.on('message', handle),
          { snapshot: () => metrics.registry.snapshot(), readiness },
        );
        return undefined;
      }
      listener = await startAdminListener(config.admin!.host, config.admin!.port, {
        readiness,
        metricsPage: async () => renderExposition(metrics.registry.snapshot()),
        metricsContentType: EXPOSITION_CONTENT_TYPE,
      });
      return listener;
    },
    flush: () => accessLog?.flush() ?? Promise.resolve(),
    async close() {
      reports?.stop();
      metrics?.stop();
      await listener?.close();
    },
  };
}

/** The checks of `/readyz`: stopping, the settings store, the log directory, the render pool. */
function readinessChecks({ config, serviceDocument, posters, draining }: OperabilityOptions): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [
    { name: 'stopping', run: () => (draining() ? 'the service is stopping (SIGTERM): drain it' : undefined) },
    ...processChecks(config, serviceDocument),
  ];
  if (posters !== undefined) checks.push({ name: 'poster_pool', run: () => posters.pool.checkLive() });
  return checks;
}

/** Checks any process of the service runs, the cluster primary included. */
export function processChecks(config: Config, serviceDocument: ServiceDocumentSource): ReadinessCheck[] {
  return [
    { name: 'settings_store', run: async () => void (await serviceDocument()) },
    { name: 'log_dir', run: () => writableDirectory(config.logDir) },
  ];
}

/** Undefined when `dir` takes new files, else why not (`EACCES`, `EROFS`, `ENOENT`…). */
async function writableDirectory(dir: string): Promise<string | undefined> {
  try {
    await access(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    return `${dir} takes no writes (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
}

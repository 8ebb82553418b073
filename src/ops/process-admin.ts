/**
 * The operator's side of one serving process, loaded only when ADMIN_PORT is set (a service
 * without it never loads the metrics or the listener): the process's metrics, its readiness
 * checks, and the operator's listener serving both, or, in a cluster worker, the reports that let
 * the primary serve them.
 */
import { access, constants } from 'node:fs/promises';
import type { Server } from 'node:http';
import { reportToPrimary, type AdminReport } from './cluster-link.js';
import { runChecks, type ReadinessCheck, type ReadinessReport } from './readiness.js';
import { startAdminListener, type AdminListener } from './listener.js';
import type { Config } from '../config/index.js';
import type { ServiceDocumentSource } from '../store/index.js';
import type { LineCounts } from '../log/index.js';
import { EXPOSITION_CONTENT_TYPE, renderExposition } from '../metrics/index.js';
import type { PosterService } from '../poster/index.js';
import { countConnections, createServiceMetrics, type ServiceMetrics } from './service-metrics.js';

export interface ProcessAdminOptions {
  readonly config: Config;
  /** Line counts of the log files, by file (`error`, `access`). */
  readonly logLines: Readonly<Record<string, () => LineCounts>>;
  /** `listen`: serve the operator's listener here; `report`: send to the cluster primary. */
  readonly role: 'listen' | 'report';
  readonly serviceDocument: ServiceDocumentSource;
  readonly posters: PosterService | undefined;
  /** True once the process stops: readiness fails from that moment. */
  readonly draining: () => boolean;
}

export interface ProcessAdmin {
  readonly metrics: ServiceMetrics;
  /** Starts counting the server's connections and, with role `listen`, the operator's listener. */
  start(server: Server): Promise<AdminListener | undefined>;
  /** Stops the listener, the reports and the monitors. */
  close(): Promise<void>;
}

export function createProcessAdmin(options: ProcessAdminOptions): ProcessAdmin {
  const { config, role, posters } = options;
  let openConnections = () => 0;
  const metrics = createServiceMetrics({
    logLines: options.logLines,
    openConnections: () => openConnections(),
    posters: posters && {
      queueDepth: () => posters.pool.queueDepth,
      storeBytes: posters.storeBytes,
      storeLimit: config.posterMaxBytes,
      jwtCacheHits: posters.jwtCacheHits,
      limitsRefusals: posters.limitsRefusals,
    },
  });
  posters?.pool.watchRenders(metrics.rendered);
  const checks = readinessChecks(options);
  const readiness = (): Promise<ReadinessReport> => runChecks(checks);
  let listener: AdminListener | undefined;
  let reports: { stop(): void } | undefined;
  return {
    metrics,
    async start(server) {
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
    async close() {
      reports?.stop();
      metrics.stop();
      await listener?.close();
    },
  };
}

/** The checks of `/readyz`: stopping, the settings store, the log directory, the render pool, Redis. */
function readinessChecks({ config, serviceDocument, posters, draining }: ProcessAdminOptions): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [
    { name: 'stopping', run: () => (draining() ? 'the service is stopping (SIGTERM): drain it' : undefined) },
    ...processChecks(config, serviceDocument),
  ];
  if (posters !== undefined) checks.push({ name: 'poster_pool', run: () => posters.pool.checkLive() });
  const redisCheck = posters?.redisCheck;
  if (redisCheck !== undefined) checks.push({ name: 'redis', run: redisCheck });
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

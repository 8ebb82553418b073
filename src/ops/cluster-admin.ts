/**
 * The operator's listener of a cluster (`WORKERS=n` with ADMIN_PORT): served by the primary for
 * the whole instance. `/metrics` sums every worker's counts (asked at each scrape; a worker that
 * died keeps the counts of its last report) with the primary's own process metrics; `/readyz`
 * is ready when the primary's checks pass and every worker that answers is ready, and at least
 * one does.
 */
import cluster, { type Worker } from 'node:cluster';
import { reportOf, runChecks, type CheckOutcome, type ReadinessReport } from './readiness.js';
import { startAdminListener, type AdminListener } from './listener.js';
import { WorkerReports } from './cluster-link.js';
import type { Config } from '../config/index.js';
import type { FileLogger } from '../log/index.js';
import { EXPOSITION_CONTENT_TYPE, mergeSnapshots, renderExposition } from '../metrics/index.js';
import { processChecks } from './process-admin.js';
import { createServiceMetrics } from './service-metrics.js';
import { createSettingsStore, storeServiceDocument } from '../store/index.js';

export interface ClusterAdmin {
  /** Reports arriving from workers, and workers retired. */
  readonly reports: WorkerReports;
  /** The listener's URL once it listens. */
  readonly listening: Promise<string>;
  close(): Promise<void>;
}

export function createClusterAdmin(config: Config, logger: FileLogger, stopping: () => boolean): ClusterAdmin {
  const reports = new WorkerReports();
  const own = createServiceMetrics({ logLines: { error: () => logger.lineCounts() }, openConnections: () => 0 });
  const serviceDocument = storeServiceDocument(createSettingsStore({ varDir: config.varDir, appEnv: config.appEnv }));
  const checks = [
    { name: 'stopping', run: () => (stopping() ? 'the service is stopping (SIGTERM): drain it' : undefined) },
    ...processChecks(config, serviceDocument),
  ];
  const workers = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

  const readiness = async (): Promise<ReadinessReport> => {
    const [primary, answers] = await Promise.all([runChecks(checks), reports.ask(workers(), true)]);
    const outcomes: (readonly [string, CheckOutcome])[] = Object.entries(primary.checks).map(([name, outcome]) => [name, outcome === 'ok' ? undefined : outcome]);
    let readyWorkers = 0;
    for (const { workerId, report } of answers.readiness) {
      if (report === undefined) {
        outcomes.push([`worker_${workerId}`, 'no answer']);
        continue;
      }
      if (report.ready) readyWorkers++;
      for (const [name, outcome] of Object.entries(report.checks)) if (outcome !== 'ok') outcomes.push([`worker_${workerId}.${name}`, outcome]);
    }
    outcomes.push(['workers', readyWorkers > 0 ? undefined : 'no worker is ready']);
    return reportOf(outcomes);
  };

  const metricsPage = async (): Promise<string> => {
    const { snapshot } = await reports.ask(workers(), false);
    const mine = own.registry.snapshot();
    return renderExposition(snapshot === undefined ? mine : mergeSnapshots([mine, snapshot]));
  };

  let listener: AdminListener | undefined;
  const listening = startAdminListener(config.admin!.host, config.admin!.port, { readiness, metricsPage, metricsContentType: EXPOSITION_CONTENT_TYPE }).then((started) => {
    listener = started;
    return started.url;
  });
  return {
    reports,
    listening,
    async close() {
      own.stop();
      await listener?.close();
    },
  };
}

/**
 * The operator's listener with `WORKERS=n`: the primary serves it, and asks every worker for its
 * metrics and readiness over node:cluster IPC. Counters sum over workers; a worker that died
 * keeps the counts of its last report (workers also report every REPORT_INTERVAL_MS, so a crash
 * loses at most that much).
 */
import { mergeSnapshots, type MetricsSnapshot } from '../metrics/index.js';
import type { ReadinessReport } from './readiness.js';

/** How often a worker reports unasked. */
export const REPORT_INTERVAL_MS = 5_000;
/** How long the primary waits for a worker's answer before it uses the worker's last report. */
export const ASK_TIMEOUT_MS = 1_500;

/** The primary asks a worker for a report. */
export interface AdminAsk {
  readonly type: 'admin-ask';
  readonly id: number;
  readonly readiness: boolean;
}

/** A worker's report: an answer (with the ask's id), or unasked. */
export interface AdminReport {
  readonly type: 'admin-report';
  readonly id: number | undefined;
  readonly snapshot: MetricsSnapshot;
  readonly readiness: ReadinessReport | undefined;
}

export function isAdminAsk(message: unknown): message is AdminAsk {
  return typeof message === 'object' && message !== null && (message as AdminAsk).type === 'admin-ask' && Number.isInteger((message as AdminAsk).id);
}

export function isAdminReport(message: unknown): message is AdminReport {
  if (typeof message !== 'object' || message === null) return false;
  const report = message as AdminReport;
  return report.type === 'admin-report' && typeof report.snapshot === 'object' && report.snapshot !== null && Array.isArray(report.snapshot.families);
}

/** What a worker reports, built on demand. */
export interface WorkerSources {
  snapshot(): MetricsSnapshot;
  readiness(): Promise<ReadinessReport>;
}

/**
 * A worker's side: answers the primary's asks and reports every REPORT_INTERVAL_MS. `send` is the
 * worker's `process.send`; returns what stops the reports (at a graceful stop, after a last one).
 */
export function reportToPrimary(
  send: (message: AdminReport) => void,
  on: (listener: (message: unknown) => void) => void,
  sources: WorkerSources,
): { stop(): void } {
  on((message) => {
    if (!isAdminAsk(message)) return;
    const readiness = message.readiness ? sources.readiness() : Promise.resolve(undefined);
    void readiness.then((report) => send({ type: 'admin-report', id: message.id, snapshot: sources.snapshot(), readiness: report }));
  });
  const timer = setInterval(() => send({ type: 'admin-report', id: undefined, snapshot: sources.snapshot(), readiness: undefined }), REPORT_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      send({ type: 'admin-report', id: undefined, snapshot: sources.snapshot(), readiness: undefined });
    },
  };
}

/** A worker as the primary's reports see it. */
export interface ReportingWorker {
  readonly id: number;
  isConnected(): boolean;
  send(message: AdminAsk): void;
}

interface Waiting {
  readonly workerId: number;
  resolve(report: AdminReport | undefined): void;
}

/** The primary's side: the last report of each worker, and what the workers that died had counted. */
export class WorkerReports {
  readonly #latest = new Map<number, MetricsSnapshot>();
  readonly #waiting = new Map<number, Waiting>();
  #retired: MetricsSnapshot | undefined;
  #nextAsk = 1;

  /** A report arrived from worker `workerId`. */
  receive(workerId: number, report: AdminReport): void {
    this.#latest.set(workerId, report.snapshot);
    if (report.id === undefined) return;
    const waiting = this.#waiting.get(report.id);
    if (waiting?.workerId !== workerId) return;
    this.#waiting.delete(report.id);
    waiting.resolve(report);
  }

  /** Worker `workerId` is gone: its last counts are kept for good. */
  retire(workerId: number): void {
    const last = this.#latest.get(workerId);
    this.#latest.delete(workerId);
    if (last !== undefined) this.#retired = this.#retired === undefined ? last : mergeSnapshots([this.#retired, last]);
    for (const [id, waiting] of this.#waiting) {
      if (waiting.workerId !== workerId) continue;
      this.#waiting.delete(id);
      waiting.resolve(undefined);
    }
  }

  /**
   * Asks every connected worker; each answer (or, past `timeoutMs`, its last report) counts.
   * Returns the merged snapshot of workers alive and gone, and each answering worker's readiness.
   */
  async ask(
    workers: readonly ReportingWorker[],
    readiness: boolean,
    timeoutMs = ASK_TIMEOUT_MS,
  ): Promise<{ snapshot: MetricsSnapshot | undefined; readiness: { readonly workerId: number; readonly report: ReadinessReport | undefined }[] }> {
    const asked = workers.filter((w) => w.isConnected());
    const answers = await Promise.all(asked.map((worker) => this.#askOne(worker, readiness, timeoutMs)));
    const snapshots = [...this.#latest.values()];
    if (this.#retired !== undefined) snapshots.push(this.#retired);
    return {
      snapshot: snapshots.length === 0 ? undefined : mergeSnapshots(snapshots),
      readiness: answers.map((answer, i) => ({ workerId: asked[i]!.id, report: answer?.readiness })),
    };
  }

  #askOne(worker: ReportingWorker, readiness: boolean, timeoutMs: number): Promise<AdminReport | undefined> {
    const id = this.#nextAsk++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.#waiting.set(id, {
        workerId: worker.id,
        resolve: (report) => {
          clearTimeout(timer);
          resolve(report);
        },
      });
      try {
        worker.send({ type: 'admin-ask', id, readiness });
      } catch {
        this.#waiting.delete(id);
        clearTimeout(timer);
        resolve(undefined);
      }
    });
  }
}

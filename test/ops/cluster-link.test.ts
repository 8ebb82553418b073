import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAdminReport, WorkerReports, type AdminReport } from '../../src/ops/cluster-link.js';
import type { ReadinessReport } from '../../src/ops/readiness.js';
import { MetricsRegistry, renderExposition, type MetricsSnapshot } from '../../src/metrics/index.js';

/** A worker's counts: `n` requests answered. */
function counted(n: number): MetricsSnapshot {
  const registry = new MetricsRegistry();
  registry.counter('http_requests_total', 'Requests.').inc([], n);
  return registry.snapshot();
}

const READY: ReadinessReport = { ready: true, checks: { stopping: 'ok' } };

/** A worker that answers every ask with its current count, or stays silent. */
function fakeWorker(reports: WorkerReports, id: number, count: () => number, answers = true) {
  return {
    id,
    isConnected: () => true,
    send(ask: { id: number; readiness: boolean }) {
      if (!answers) return;
      const report: AdminReport = { type: 'admin-report', id: ask.id, snapshot: counted(count()), readiness: ask.readiness ? READY : undefined };
      setImmediate(() => reports.receive(id, report));
    },
  };
}

const total = (snapshot: MetricsSnapshot | undefined) => /^http_requests_total (\d+)$/m.exec(renderExposition(snapshot!))?.[1];

describe('the cluster primary\'s reports', () => {
  it('sums the workers\' answers, and each one\'s readiness', async () => {
    const reports = new WorkerReports();
    const answer = await reports.ask([fakeWorker(reports, 1, () => 3), fakeWorker(reports, 2, () => 4)], true);
    assert.equal(total(answer.snapshot), '7');
    assert.deepEqual(answer.readiness, [{ workerId: 1, report: READY }, { workerId: 2, report: READY }]);
  });

  it('uses a silent worker\'s last report once the wait is over, and says it did not answer', async () => {
    const reports = new WorkerReports();
    reports.receive(2, { type: 'admin-report', id: undefined, snapshot: counted(5), readiness: undefined });
    const answer = await reports.ask([fakeWorker(reports, 1, () => 1), fakeWorker(reports, 2, () => 99, false)], true, 50);
    assert.equal(total(answer.snapshot), '6');
    assert.deepEqual(answer.readiness[1], { workerId: 2, report: undefined });
  });

  it('keeps what a worker that died had counted, added to its replacement\'s', async () => {
    const reports = new WorkerReports();
    await reports.ask([fakeWorker(reports, 1, () => 10)], false);
    reports.retire(1);
    assert.equal(total((await reports.ask([fakeWorker(reports, 2, () => 2)], false)).snapshot), '12');
    reports.retire(2);
    assert.equal(total((await reports.ask([fakeWorker(reports, 3, () => 0)], false)).snapshot), '12');
  });

  it('ignores an answer to another worker\'s ask, and messages that are no report', async () => {
    const reports = new WorkerReports();
    const silent = fakeWorker(reports, 1, () => 0, false);
    const asking = reports.ask([silent], true, 50);
    reports.receive(2, { type: 'admin-report', id: 1, snapshot: counted(1), readiness: READY });
    assert.deepEqual((await asking).readiness, [{ workerId: 1, report: undefined }]);
    assert.equal(isAdminReport({ type: 'admin-report', snapshot: null }), false);
    assert.equal(isAdminReport({ type: 'listening', url: 'http://x' }), false);
  });
});

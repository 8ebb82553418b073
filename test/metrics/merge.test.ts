import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricsRegistry, mergeSnapshots, renderExposition, type Counter, type Gauge, type Histogram } from '../../src/metrics/index.js';

interface Instruments {
  readonly requests: Counter;
  readonly jobs: Counter;
  readonly inFlight: Gauge;
  readonly durations: Histogram;
}

/** The same families in each process, as every worker runs the same code. */
function instrument(registry: MetricsRegistry): Instruments {
  return {
    requests: registry.counter('http_requests_total', 'Requests.', ['method', 'code']),
    jobs: registry.counter('jobs_total', 'Jobs.'),
    inFlight: registry.gauge('in_flight', 'In flight.', { labelNames: ['route'] }),
    durations: registry.histogram('duration_seconds', 'Durations.', { labelNames: ['route'], buckets: [0.25, 1] }),
  };
}

// Values exact in binary, so sums do not depend on the order of additions.
function firstObservations(m: Instruments): void {
  m.requests.inc(['GET', '200']);
  m.requests.inc(['GET', '404'], 2);
  m.jobs.inc();
  m.inFlight.inc(['/a'], 3);
  m.durations.observe(['/a'], 0.125);
  m.durations.observe(['/a'], 2);
}

function secondObservations(m: Instruments): void {
  m.requests.inc(['GET', '200'], 5);
  m.requests.inc(['POST', '201']);
  m.inFlight.inc(['/a']);
  m.inFlight.inc(['/b'], 2);
  m.durations.observe(['/a'], 0.5);
  m.durations.observe(['/b'], 0.25);
}

describe('mergeSnapshots', () => {
  it('gives the page one registry shows after both processes\' observations', () => {
    const [a, b, both] = [new MetricsRegistry(), new MetricsRegistry(), new MetricsRegistry()];
    firstObservations(instrument(a));
    secondObservations(instrument(b));
    const all = instrument(both);
    firstObservations(all);
    secondObservations(all);
    const merged = renderExposition(mergeSnapshots([a.snapshot(), b.snapshot()]));
    assert.equal(merged, renderExposition(both.snapshot()));
    assert.equal(
      merged,
      [
        '# HELP http_requests_total Requests.',
        '# TYPE http_requests_total counter',
        'http_requests_total{method="GET",code="200"} 6',
        'http_requests_total{method="GET",code="404"} 2',
        'http_requests_total{method="POST",code="201"} 1',
        '# HELP jobs_total Jobs.',
        '# TYPE jobs_total counter',
        'jobs_total 1',
        '# HELP in_flight In flight.',
        '# TYPE in_flight gauge',
        'in_flight{route="/a"} 4',
        'in_flight{route="/b"} 2',
        '# HELP duration_seconds Durations.',
        '# TYPE duration_seconds histogram',
        'duration_seconds_bucket{route="/a",le="0.25"} 1',
        'duration_seconds_bucket{route="/a",le="1"} 2',
        'duration_seconds_bucket{route="/a",le="+Inf"} 3',
        'duration_seconds_sum{route="/a"} 2.625',
        'duration_seconds_count{route="/a"} 3',
        'duration_seconds_bucket{route="/b",le="0.25"} 1',
        'duration_seconds_bucket{route="/b",le="1"} 1',
        'duration_seconds_bucket{route="/b",le="+Inf"} 1',
        'duration_seconds_sum{route="/b"} 0.25',
        'duration_seconds_count{route="/b"} 1',
        '',
      ].join('\n'),
    );
  });

  it('merges snapshots that went through JSON, as over node:cluster IPC', () => {
    const [a, b] = [new MetricsRegistry(), new MetricsRegistry()];
    firstObservations(instrument(a));
    secondObservations(instrument(b));
    const travelled = [a, b].map((r) => JSON.parse(JSON.stringify(r.snapshot())));
    assert.equal(renderExposition(mergeSnapshots(travelled)), renderExposition(mergeSnapshots([a.snapshot(), b.snapshot()])));
  });

  it('merges gauges by their aggregation: sum or max', () => {
    const snapshots = [3, 5].map((value) => {
      const registry = new MetricsRegistry();
      registry.gauge('memory_bytes', 'Memory.').set([], value);
      registry.gauge('started_seconds', 'Start.', { aggregation: 'max' }).set([], value);
      return registry.snapshot();
    });
    assert.equal(
      renderExposition(mergeSnapshots(snapshots)),
      '# HELP memory_bytes Memory.\n# TYPE memory_bytes gauge\nmemory_bytes 8\n# HELP started_seconds Start.\n# TYPE started_seconds gauge\nstarted_seconds 5\n',
    );
  });

  it('lets a number win over NaN in a max, and merges summaries: quantiles by max, sum and count added', () => {
    const snapshots = [
      { q: [0.001, Number.NaN], peak: Number.NaN, sum: 0.5, count: 10 },
      { q: [0.003, 0.02], peak: 7, sum: 0.25, count: 30 },
    ].map(({ q, peak, sum, count }) => {
      const registry = new MetricsRegistry();
      registry.gauge('peak', 'Peak.', { aggregation: 'max' }).set([], peak);
      registry.summary('lag_seconds', 'Lag.', { quantiles: [0.5, 0.99], collect: () => ({ quantileValues: q, sum, count }) });
      return registry.snapshot();
    });
    assert.equal(
      renderExposition(mergeSnapshots(snapshots)),
      [
        '# HELP peak Peak.',
        '# TYPE peak gauge',
        'peak 7',
        '# HELP lag_seconds Lag.',
        '# TYPE lag_seconds summary',
        'lag_seconds{quantile="0.5"} 0.003',
        'lag_seconds{quantile="0.99"} 0.02',
        'lag_seconds_sum 0.75',
        'lag_seconds_count 40',
        '',
      ].join('\n'),
    );
  });

  it('keeps families present in only some snapshots, in order of first appearance', () => {
    const a = new MetricsRegistry();
    a.counter('a_total', 'A.').inc();
    const b = new MetricsRegistry();
    b.gauge('b', 'B.').set([], 2);
    b.counter('a_total', 'A.').inc([], 4);
    const c = new MetricsRegistry();
    c.counter('c_total', 'C.', ['kind']);
    assert.equal(
      renderExposition(mergeSnapshots([a.snapshot(), b.snapshot(), c.snapshot()])),
      '# HELP a_total A.\n# TYPE a_total counter\na_total 5\n# HELP b B.\n# TYPE b gauge\nb 2\n# HELP c_total C.\n# TYPE c_total counter\n',
    );
  });

  it('gives an empty snapshot for none, and an equal page for one', () => {
    assert.deepEqual(mergeSnapshots([]), { families: [] });
    const registry = new MetricsRegistry();
    firstObservations(instrument(registry));
    assert.equal(renderExposition(mergeSnapshots([registry.snapshot()])), renderExposition(registry.snapshot()));
  });

  it('refuses histograms whose buckets differ', () => {
    const a = new MetricsRegistry();
    a.histogram('d', 'D.', { buckets: [1, 2] });
    const b = new MetricsRegistry();
    b.histogram('d', 'D.', { buckets: [1, 3] });
    assert.throws(() => mergeSnapshots([a.snapshot(), b.snapshot()]), (err: unknown) => err instanceof TypeError && /families d: their buckets differ/.test(err.message));
  });

  it('refuses families of one name but different types, label names or aggregations', () => {
    const snapshotOf = (define: (r: MetricsRegistry) => void) => {
      const registry = new MetricsRegistry();
      define(registry);
      return registry.snapshot();
    };
    const counter = snapshotOf((r) => r.counter('x', 'X.'));
    const refused = (err: unknown, what: string) => err instanceof TypeError && err.message.includes(`their ${what} differ`);
    assert.throws(() => mergeSnapshots([counter, snapshotOf((r) => r.gauge('x', 'X.'))]), (err) => refused(err, 'types'));
    assert.throws(() => mergeSnapshots([counter, snapshotOf((r) => r.counter('x', 'X.', ['a']))]), (err) => refused(err, 'label names'));
    const sum = snapshotOf((r) => r.gauge('g', 'G.'));
    assert.throws(() => mergeSnapshots([sum, snapshotOf((r) => r.gauge('g', 'G.', { aggregation: 'max' }))]), (err) => refused(err, 'aggregations'));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_SERIES, MetricsRegistry, mergeSnapshots, renderExposition } from '../../src/metrics/index.js';

const page = (registry: MetricsRegistry) => renderExposition(registry.snapshot());

describe('the bound on series', () => {
  it('counts combinations past maxSeries - 1 into one series labelled "other"', () => {
    const registry = new MetricsRegistry();
    const requests = registry.counter('requests_total', 'Requests.', ['method', 'code'], { maxSeries: 3 });
    requests.inc(['GET', '200']);
    requests.inc(['POST', '200']);
    requests.inc(['BREW', '200']);
    requests.inc(['WHEN', '418'], 2);
    requests.inc(['GET', '200']);
    assert.equal(
      page(registry),
      [
        '# HELP requests_total Requests.',
        '# TYPE requests_total counter',
        'requests_total{method="GET",code="200"} 2',
        'requests_total{method="POST",code="200"} 1',
        'requests_total{method="other",code="other"} 3',
        '',
      ].join('\n'),
    );
  });

  it('holds at most maxSeries series however many combinations come', () => {
    const registry = new MetricsRegistry({ maxSeries: 10 });
    const paths = registry.counter('paths_total', 'Paths.', ['path']);
    for (let i = 0; i < 500; i++) paths.inc([`/p${i}`]);
    const [family] = registry.snapshot().families;
    assert.equal(family!.series.length, 10);
    assert.match(page(registry), /\npaths_total\{path="\/p8"\} 1\npaths_total\{path="other"\} 491\n$/);
  });

  it('bounds histograms the same way', () => {
    const registry = new MetricsRegistry();
    const sizes = registry.histogram('sizes', 'Sizes.', { labelNames: ['route'], buckets: [1], maxSeries: 2 });
    sizes.observe(['/a'], 0.5);
    sizes.observe(['/b'], 2);
    sizes.observe(['/c'], 0.5);
    assert.equal(
      page(registry),
      [
        '# HELP sizes Sizes.',
        '# TYPE sizes histogram',
        'sizes_bucket{route="/a",le="1"} 1',
        'sizes_bucket{route="/a",le="+Inf"} 1',
        'sizes_sum{route="/a"} 0.5',
        'sizes_count{route="/a"} 1',
        'sizes_bucket{route="other",le="1"} 1',
        'sizes_bucket{route="other",le="+Inf"} 2',
        'sizes_sum{route="other"} 2.5',
        'sizes_count{route="other"} 2',
        '',
      ].join('\n'),
    );
  });

  it('folds collected values past the bound into "other" by the family aggregation', () => {
    const registry = new MetricsRegistry();
    registry.gauge('pool_size', 'Pools.', { labelNames: ['pool'], maxSeries: 2, collect: () => [[['a'], 1], [['b'], 5], [['c'], 3]] });
    registry.gauge('pool_peak', 'Peaks.', { labelNames: ['pool'], maxSeries: 2, aggregation: 'max', collect: () => [[['a'], 1], [['b'], 5], [['c'], 3]] });
    assert.match(page(registry), /pool_size\{pool="a"\} 1\npool_size\{pool="other"\} 8\n/);
    assert.match(page(registry), /pool_peak\{pool="a"\} 1\npool_peak\{pool="other"\} 5\n/);
  });

  it('keeps the bound when merging the snapshots of several processes', () => {
    const snapshots = ['a', 'b', 'c'].map((path) => {
      const registry = new MetricsRegistry();
      registry.counter('paths_total', 'Paths.', ['path'], { maxSeries: 2 }).inc([path]);
      return registry.snapshot();
    });
    assert.equal(
      renderExposition(mergeSnapshots(snapshots)),
      '# HELP paths_total Paths.\n# TYPE paths_total counter\npaths_total{path="a"} 1\npaths_total{path="other"} 2\n',
    );
  });

  it('is 1000 unless told otherwise', () => {
    assert.equal(DEFAULT_MAX_SERIES, 1000);
    const registry = new MetricsRegistry();
    const paths = registry.counter('paths_total', 'Paths.', ['path']);
    for (let i = 0; i < 1200; i++) paths.inc([`/p${i}`]);
    assert.equal(registry.snapshot().families[0]!.series.length, 1000);
  });
});

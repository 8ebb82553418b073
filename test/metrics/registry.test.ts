import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricsRegistry, renderExposition } from '../../src/metrics/index.js';

const typeError = (pattern: RegExp) => (err: unknown) => err instanceof TypeError && pattern.test(err.message);

describe('MetricsRegistry: names', () => {
  it('accepts names of letters, digits, underscores and colons', () => {
    const registry = new MetricsRegistry();
    registry.counter('a:b_c9_total', 'Fine.');
    registry.gauge('_leading_underscore', 'Fine.');
    registry.gauge(':leading_colon', 'Fine.');
    assert.equal(registry.snapshot().families.length, 3);
  });

  it('refuses a metric name starting with a digit', () => {
    assert.throws(() => new MetricsRegistry().counter('9lives_total', 'No.'), typeError(/invalid metric name "9lives_total"/));
  });

  it('refuses a metric name with a dash, a dot or a space', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.counter('http-requests', 'No.'), typeError(/invalid metric name/));
    assert.throws(() => registry.gauge('http.requests', 'No.'), typeError(/invalid metric name/));
    assert.throws(() => registry.histogram('http requests', 'No.'), typeError(/invalid metric name/));
    assert.throws(() => registry.gauge('', 'No.'), typeError(/invalid metric name/));
  });

  it('refuses the reserved __ prefix on metric and label names', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.counter('__name_total', 'No.'), typeError(/__ prefix is reserved/));
    assert.throws(() => registry.counter('ok_total', 'No.', ['__hidden']), typeError(/label name "__hidden".*__ prefix is reserved/));
  });

  it('refuses a label name with a colon or a leading digit', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.counter('a_total', 'No.', ['a:b']), typeError(/invalid label name "a:b" of a_total/));
    assert.throws(() => registry.gauge('b', 'No.', { labelNames: ['1st'] }), typeError(/invalid label name "1st"/));
  });

  it('refuses the label names the exposition writes itself, le and quantile', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.histogram('h', 'No.', { labelNames: ['le'] }), typeError(/"le".*reserved/));
    assert.throws(() => registry.counter('c_total', 'No.', ['quantile']), typeError(/"quantile".*reserved/));
  });

  it('refuses a label name given twice', () => {
    assert.throws(() => new MetricsRegistry().counter('c_total', 'No.', ['a', 'a']), typeError(/"a".*given twice/));
  });

  it('refuses a name registered twice, whatever the kinds', () => {
    const registry = new MetricsRegistry();
    registry.counter('jobs_total', 'Jobs.');
    assert.throws(() => registry.counter('jobs_total', 'Again.'), typeError(/jobs_total is already registered/));
    assert.throws(() => registry.gauge('jobs_total', 'Again.'), typeError(/jobs_total is already registered/));
  });

  it("refuses a name that another family's samples write", () => {
    const registry = new MetricsRegistry();
    registry.histogram('latency_seconds', 'Latency.');
    assert.throws(() => registry.counter('latency_seconds_count', 'Clash.'), typeError(/latency_seconds_count is already registered/));
    registry.gauge('queue_sum', 'Taken first.');
    assert.throws(() => registry.histogram('queue', 'Clash.'), typeError(/queue_sum is already registered/));
  });

  it('leaves the registry unchanged by a refused registration', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.counter('a_total', 'No.', ['le']));
    registry.counter('a_total', 'Yes.');
    assert.equal(renderExposition(registry.snapshot()), '# HELP a_total Yes.\n# TYPE a_total counter\na_total 0\n');
  });
});

describe('MetricsRegistry: options', () => {
  it('refuses buckets that do not increase, or are not finite', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.histogram('h1', 'No.', { buckets: [1, 1] }), typeError(/buckets must increase, 1 follows 1/));
    assert.throws(() => registry.histogram('h2', 'No.', { buckets: [2, 1] }), typeError(/buckets must increase/));
    assert.throws(() => registry.histogram('h3', 'No.', { buckets: [1, Infinity] }), typeError(/\+Inf bucket is implicit/));
    assert.throws(() => registry.histogram('h4', 'No.', { buckets: [Number.NaN] }), typeError(/must be finite/));
  });

  it('accepts a histogram with no bucket but +Inf', () => {
    const registry = new MetricsRegistry();
    registry.histogram('h', 'Only +Inf.', { buckets: [] }).observe([], 3);
    assert.equal(renderExposition(registry.snapshot()), '# HELP h Only +Inf.\n# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 3\nh_count 1\n');
  });

  it('refuses quantiles outside [0, 1] or out of order', () => {
    const registry = new MetricsRegistry();
    const collect = () => ({ quantileValues: [0], sum: 0, count: 0 });
    assert.throws(() => registry.summary('s1', 'No.', { quantiles: [1.5], collect }), typeError(/quantiles must be finite numbers in \[0, 1\]/));
    assert.throws(() => registry.summary('s2', 'No.', { quantiles: [0.9, 0.5], collect }), typeError(/quantiles must increase/));
  });

  it('refuses a summary collect that reports the wrong number of quantile values', () => {
    const registry = new MetricsRegistry();
    registry.summary('s', 'Wrong.', { quantiles: [0.5, 0.9], collect: () => ({ quantileValues: [1], sum: 1, count: 1 }) });
    assert.throws(() => registry.snapshot(), typeError(/reported 1 quantile values for 2 quantiles/));
  });

  it('refuses an unknown aggregation and a maxSeries below 1', () => {
    const registry = new MetricsRegistry();
    assert.throws(() => registry.gauge('g', 'No.', { aggregation: 'min' as 'max' }), typeError(/unknown aggregation "min"/));
    assert.throws(() => registry.counter('c_total', 'No.', ['a'], { maxSeries: 0 }), typeError(/maxSeries must be a whole number >= 1/));
    assert.throws(() => new MetricsRegistry({ maxSeries: 1.5 }), typeError(/maxSeries/));
  });
});

describe('MetricsRegistry: use', () => {
  it('refuses the wrong number of label values', () => {
    const registry = new MetricsRegistry();
    const requests = registry.counter('requests_total', 'Requests.', ['method', 'code']);
    assert.throws(() => requests.inc(['GET']), typeError(/requests_total: expected 2 label values, got 1/));
    assert.throws(() => requests.inc(), typeError(/expected 2 label values, got 0/));
    const queue = registry.gauge('queue', 'Queue.');
    assert.throws(() => queue.set(['x'], 1), typeError(/queue: expected 0 label values, got 1/));
    const sizes = registry.histogram('sizes', 'Sizes.', { labelNames: ['route'] });
    assert.throws(() => sizes.observe([], 1), typeError(/sizes: expected 1 label values, got 0/));
  });

  it('refuses to take a counter down, or up by NaN', () => {
    const counter = new MetricsRegistry().counter('c_total', 'C.');
    assert.throws(() => counter.inc([], -1), typeError(/a counter only goes up, not by -1/));
    assert.throws(() => counter.inc([], Number.NaN), typeError(/not by NaN/));
  });

  it('refuses a counter collect that reports a negative total', () => {
    const registry = new MetricsRegistry();
    registry.counter('c_total', 'C.', [], { collect: () => -1 });
    assert.throws(() => registry.snapshot(), typeError(/c_total: collect reported -1/));
  });

  it('refuses to observe NaN, and the series stays as it was', () => {
    const registry = new MetricsRegistry();
    const h = registry.histogram('h', 'H.', { buckets: [1] });
    assert.throws(() => h.observe([], Number.NaN), typeError(/h: cannot observe NaN/));
    assert.equal(renderExposition(registry.snapshot()), '# HELP h H.\n# TYPE h histogram\nh_bucket{le="1"} 0\nh_bucket{le="+Inf"} 0\nh_sum 0\nh_count 0\n');
  });

  it('gives a snapshot that later observations do not change', () => {
    const registry = new MetricsRegistry();
    const jobs = registry.counter('jobs_total', 'Jobs.');
    const sizes = registry.histogram('sizes', 'Sizes.', { buckets: [1] });
    jobs.inc();
    sizes.observe([], 0.5);
    const before = registry.snapshot();
    const page = renderExposition(before);
    jobs.inc();
    sizes.observe([], 0.5);
    assert.equal(renderExposition(before), page);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPOSITION_CONTENT_TYPE, MetricsRegistry, renderExposition } from '../../src/metrics/index.js';

const page = (registry: MetricsRegistry) => renderExposition(registry.snapshot());

describe('renderExposition: counters', () => {
  it('shows an unlabelled counter as 0 before its first inc', () => {
    const registry = new MetricsRegistry();
    registry.counter('jobs_total', 'Jobs done.');
    assert.equal(page(registry), '# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total 0\n');
  });

  it('adds 1 by default and any non-negative amount', () => {
    const registry = new MetricsRegistry();
    const jobs = registry.counter('jobs_total', 'Jobs done.');
    jobs.inc();
    jobs.inc([], 2.5);
    jobs.inc([], 0);
    assert.equal(page(registry), '# HELP jobs_total Jobs done.\n# TYPE jobs_total counter\njobs_total 3.5\n');
  });

  it('shows only HELP and TYPE for a labelled family with no series yet', () => {
    const registry = new MetricsRegistry();
    registry.counter('http_requests_total', 'Requests answered.', ['method', 'code']);
    assert.equal(page(registry), '# HELP http_requests_total Requests answered.\n# TYPE http_requests_total counter\n');
  });

  it('writes series in order of first use, label values in label-name order', () => {
    const registry = new MetricsRegistry();
    const requests = registry.counter('http_requests_total', 'Requests answered.', ['method', 'code']);
    requests.inc(['GET', '200']);
    requests.inc(['POST', '201']);
    requests.inc(['GET', '200']);
    requests.inc(['GET', '404'], 3);
    assert.equal(
      page(registry),
      [
        '# HELP http_requests_total Requests answered.',
        '# TYPE http_requests_total counter',
        'http_requests_total{method="GET",code="200"} 2',
        'http_requests_total{method="POST",code="201"} 1',
        'http_requests_total{method="GET",code="404"} 3',
        '',
      ].join('\n'),
    );
  });

  it('keeps a series apart from another whose label values join to the same text', () => {
    const registry = new MetricsRegistry();
    const pairs = registry.counter('pairs_total', 'Pairs.', ['a', 'b']);
    pairs.inc(['x\u0000y', 'z']);
    pairs.inc(['x', 'y\u0000z']);
    assert.equal(
      page(registry),
      '# HELP pairs_total Pairs.\n# TYPE pairs_total counter\npairs_total{a="x\u0000y",b="z"} 1\npairs_total{a="x",b="y\u0000z"} 1\n',
    );
  });

  it('does not change a series when the caller reuses its label array', () => {
    const registry = new MetricsRegistry();
    const requests = registry.counter('requests_total', 'Requests.', ['method']);
    const labels = ['GET'];
    requests.inc(labels);
    labels[0] = 'PUT';
    requests.inc(labels);
    assert.equal(page(registry), '# HELP requests_total Requests.\n# TYPE requests_total counter\nrequests_total{method="GET"} 1\nrequests_total{method="PUT"} 1\n');
  });

  it('reports the totals a collect callback gives', () => {
    const registry = new MetricsRegistry();
    let total = 1.25;
    registry.counter('work_seconds_total', 'Work.', [], { collect: () => total });
    assert.equal(page(registry), '# HELP work_seconds_total Work.\n# TYPE work_seconds_total counter\nwork_seconds_total 1.25\n');
    total = 2;
    assert.equal(page(registry), '# HELP work_seconds_total Work.\n# TYPE work_seconds_total counter\nwork_seconds_total 2\n');
  });
});

describe('renderExposition: gauges', () => {
  it('sets, increments and decrements', () => {
    const registry = new MetricsRegistry();
    const open = registry.gauge('open_connections', 'Open connections.', { labelNames: ['listener'] });
    open.inc(['public']);
    open.inc(['public'], 4);
    open.dec(['public']);
    open.set(['admin'], 7);
    open.dec(['admin'], 10);
    assert.equal(
      page(registry),
      '# HELP open_connections Open connections.\n# TYPE open_connections gauge\nopen_connections{listener="public"} 4\nopen_connections{listener="admin"} -3\n',
    );
  });

  it('shows an unlabelled gauge as 0 before it is set', () => {
    const registry = new MetricsRegistry();
    registry.gauge('queue_length', 'Jobs waiting.');
    assert.equal(page(registry), '# HELP queue_length Jobs waiting.\n# TYPE queue_length gauge\nqueue_length 0\n');
  });

  it('replaces its series by what collect reports, in the reported order', () => {
    const registry = new MetricsRegistry();
    let reports: [string[], number][] = [[['b'], 2], [['a'], 1]];
    registry.gauge('pool_size', 'Pool size.', { labelNames: ['pool'], collect: () => reports });
    assert.equal(page(registry), '# HELP pool_size Pool size.\n# TYPE pool_size gauge\npool_size{pool="b"} 2\npool_size{pool="a"} 1\n');
    reports = [[['a'], 5]];
    assert.equal(page(registry), '# HELP pool_size Pool size.\n# TYPE pool_size gauge\npool_size{pool="a"} 5\n');
  });
});

describe('renderExposition: histograms', () => {
  it('uses the default buckets and shows an unlabelled histogram empty before its first observation', () => {
    const registry = new MetricsRegistry();
    registry.histogram('job_duration_seconds', 'Job durations.');
    const bounds = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
    assert.equal(
      page(registry),
      [
        '# HELP job_duration_seconds Job durations.',
        '# TYPE job_duration_seconds histogram',
        ...bounds.map((le) => `job_duration_seconds_bucket{le="${le}"} 0`),
        'job_duration_seconds_sum 0',
        'job_duration_seconds_count 0',
        '',
      ].join('\n'),
    );
  });

  it('counts cumulatively, a value on a bound in that bound, past the last bound in +Inf only', () => {
    const registry = new MetricsRegistry();
    const sizes = registry.histogram('response_size_bytes', 'Response sizes.', { labelNames: ['route'], buckets: [100, 1000] });
    sizes.observe(['/a'], 100);
    sizes.observe(['/a'], 50);
    sizes.observe(['/a'], 101);
    sizes.observe(['/a'], 5000);
    sizes.observe(['/b'], 1000);
    assert.equal(
      page(registry),
      [
        '# HELP response_size_bytes Response sizes.',
        '# TYPE response_size_bytes histogram',
        'response_size_bytes_bucket{route="/a",le="100"} 2',
        'response_size_bytes_bucket{route="/a",le="1000"} 3',
        'response_size_bytes_bucket{route="/a",le="+Inf"} 4',
        'response_size_bytes_sum{route="/a"} 5251',
        'response_size_bytes_count{route="/a"} 4',
        'response_size_bytes_bucket{route="/b",le="100"} 0',
        'response_size_bytes_bucket{route="/b",le="1000"} 1',
        'response_size_bytes_bucket{route="/b",le="+Inf"} 1',
        'response_size_bytes_sum{route="/b"} 1000',
        'response_size_bytes_count{route="/b"} 1',
        '',
      ].join('\n'),
    );
  });

  it('counts -Inf in the first bucket and +Inf in the +Inf bucket, and spells the sum', () => {
    const registry = new MetricsRegistry();
    const h = registry.histogram('odd_values', 'Odd values.', { buckets: [0.5] });
    h.observe([], -Infinity);
    assert.equal(page(registry), '# HELP odd_values Odd values.\n# TYPE odd_values histogram\nodd_values_bucket{le="0.5"} 1\nodd_values_bucket{le="+Inf"} 1\nodd_values_sum -Inf\nodd_values_count 1\n');
    const g = registry.histogram('big_values', 'Big values.', { buckets: [0.5] });
    g.observe([], Infinity);
    assert.match(page(registry), /\nbig_values_bucket\{le="0\.5"\} 0\nbig_values_bucket\{le="\+Inf"\} 1\nbig_values_sum \+Inf\nbig_values_count 1\n$/);
  });
});

describe('renderExposition: summaries', () => {
  it('writes one sample per quantile, then _sum and _count', () => {
    const registry = new MetricsRegistry();
    registry.summary('lag_seconds', 'Lag.', { quantiles: [0.5, 0.99], collect: () => ({ quantileValues: [0.001, Number.NaN], sum: 0.25, count: 12 }) });
    assert.equal(
      page(registry),
      '# HELP lag_seconds Lag.\n# TYPE lag_seconds summary\nlag_seconds{quantile="0.5"} 0.001\nlag_seconds{quantile="0.99"} NaN\nlag_seconds_sum 0.25\nlag_seconds_count 12\n',
    );
  });
});

describe('renderExposition: text', () => {
  it('escapes backslash and line feed in HELP, and leaves double quotes alone', () => {
    const registry = new MetricsRegistry();
    registry.gauge('odd_help', 'A "quoted" C:\\path\nand a second line.');
    assert.equal(page(registry), '# HELP odd_help A "quoted" C:\\\\path\\nand a second line.\n# TYPE odd_help gauge\nodd_help 0\n');
  });

  it('escapes backslash, double quote and line feed in label values', () => {
    const registry = new MetricsRegistry();
    const paths = registry.counter('paths_total', 'Paths.', ['path']);
    paths.inc(['C:\\dir "x"\nnext']);
    assert.equal(page(registry), '# HELP paths_total Paths.\n# TYPE paths_total counter\npaths_total{path="C:\\\\dir \\"x\\"\\nnext"} 1\n');
  });

  it('prints integers as integers and spells +Inf, -Inf and NaN as Prometheus does', () => {
    const registry = new MetricsRegistry();
    const g = registry.gauge('values', 'Values.', { labelNames: ['case'] });
    g.set(['integer'], 42);
    g.set(['large integer'], 2 ** 53);
    g.set(['fraction'], 0.1);
    g.set(['small'], 1.5e-7);
    g.set(['negative zero'], -0);
    g.set(['positive infinity'], Infinity);
    g.set(['negative infinity'], -Infinity);
    g.set(['not a number'], Number.NaN);
    assert.equal(
      page(registry),
      [
        '# HELP values Values.',
        '# TYPE values gauge',
        'values{case="integer"} 42',
        'values{case="large integer"} 9007199254740992',
        'values{case="fraction"} 0.1',
        'values{case="small"} 1.5e-7',
        'values{case="negative zero"} 0',
        'values{case="positive infinity"} +Inf',
        'values{case="negative infinity"} -Inf',
        'values{case="not a number"} NaN',
        '',
      ].join('\n'),
    );
  });

  it('writes families in registration order', () => {
    const registry = new MetricsRegistry();
    registry.gauge('b_value', 'B.');
    registry.counter('a_total', 'A.');
    assert.equal(page(registry), '# HELP b_value B.\n# TYPE b_value gauge\nb_value 0\n# HELP a_total A.\n# TYPE a_total counter\na_total 0\n');
  });

  it('writes nothing for an empty registry', () => {
    assert.equal(page(new MetricsRegistry()), '');
  });

  it('renders the same page from a snapshot that went through JSON, non-finite values included', () => {
    const registry = new MetricsRegistry();
    registry.gauge('values', 'Values.', { labelNames: ['case'] }).set(['nan'], Number.NaN);
    registry.histogram('sizes', 'Sizes.', { buckets: [1] }).observe([], Infinity);
    registry.counter('things_total', 'Things.').inc([], 3);
    const travelled = JSON.parse(JSON.stringify(registry.snapshot()));
    assert.equal(renderExposition(travelled), page(registry));
    assert.match(renderExposition(travelled), /values\{case="nan"\} NaN\n[^]*sizes_sum \+Inf\n/);
  });

  it('names the content type of format 0.0.4', () => {
    assert.equal(EXPOSITION_CONTENT_TYPE, 'text/plain; version=0.0.4; charset=utf-8');
  });
});

/**
 * Our exposition against Prometheus' own checker: `promtool check metrics` (Debian's prometheus
 * package) parses the page we render, in text format 0.0.4 as a scrape would, and lints it.
 * It must exit 0 and print nothing. Fails, never skips, without promtool.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createProcessMetrics, MetricsRegistry, mergeSnapshots, renderExposition, type MetricsSnapshot } from '../../src/metrics/index.js';
import { runProgram, type ProgramResult } from '../helpers/programs.js';

/** Writes the page to a file in a temp dir of its own and gives promtool that file's bytes on stdin. */
async function promtoolCheck(page: string): Promise<ProgramResult> {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
  try {
    const file = join(dir, 'metrics.prom');
    writeFileSync(file, page);
    return await runProgram('promtool', ['check', 'metrics'], readFileSync(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const output = (result: ProgramResult) => `${result.stdout.toString('utf8')}${result.stderr}`;

/** One family of each kind, labels that need escaping, and every spelled value. */
function workerSnapshot(method: string, code: string, seconds: number): MetricsSnapshot {
  const registry = new MetricsRegistry();
  const requests = registry.counter('http_requests_total', 'Requests answered, by method and status code.', ['method', 'code']);
  const inFlight = registry.gauge('http_requests_in_flight', 'Requests being answered.\nA second line, and a \\ backslash.');
  const durations = registry.histogram('http_request_duration_seconds', 'Time to answer a request.', { labelNames: ['route'] });
  const odd = registry.gauge('test_odd_values', 'Values Prometheus spells: "+Inf", "-Inf" and "NaN".', { labelNames: ['case'], aggregation: 'max' });
  requests.inc([method, code]);
  requests.inc(['GET', '200'], 3);
  requests.inc(['WEIRD \\ "quoted"\nmethod', '400']);
  inFlight.set([], 2);
  durations.observe(['/'], seconds);
  durations.observe(['/metrics'], 12);
  odd.set(['infinite'], Infinity);
  odd.set(['negative infinite'], -Infinity);
  odd.set(['not a number'], Number.NaN);
  odd.set(['tiny'], 1.5e-9);
  const processMetrics = createProcessMetrics(registry);
  try {
    return registry.snapshot();
  } finally {
    processMetrics.stop();
  }
}

describe('promtool check metrics', () => {
  it('finds promtool installed', async () => {
    const result = await runProgram('promtool', ['--version']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(output(result), /^promtool, version/);
  });

  it('passes the page of one process, with every kind of family and the process metrics, without a word', async () => {
    const page = renderExposition(workerSnapshot('POST', '201', 0.03));
    for (const type of ['counter', 'gauge', 'histogram', 'summary']) assert.match(page, new RegExp(`\\n# TYPE \\w+ ${type}\\n`));
    assert.match(page, /method="WEIRD \\\\ \\"quoted\\"\\nmethod"/);
    const result = await promtoolCheck(page);
    assert.equal(output(result), '');
    assert.equal(result.code, 0);
  });

  it('passes the page merged from two processes without a word', async () => {
    const page = renderExposition(mergeSnapshots([workerSnapshot('POST', '201', 0.03), workerSnapshot('DELETE', '204', 0.7)]));
    assert.match(page, /\nhttp_requests_total\{method="GET",code="200"\} 6\n/);
    const result = await promtoolCheck(page);
    assert.equal(output(result), '');
    assert.equal(result.code, 0);
  });

  it('does speak up about a page with a problem, so its silence means something', async () => {
    const registry = new MetricsRegistry();
    registry.counter('http_requests', 'A counter without the _total suffix.');
    const result = await promtoolCheck(renderExposition(registry.snapshot()));
    assert.match(output(result), /http_requests counter metrics should have "_total" suffix/);
    assert.notEqual(result.code, 0);
  });

  it('refuses a page whose label value is not escaped, as a scrape would', async () => {
    const result = await promtoolCheck('# HELP a_total A.\n# TYPE a_total counter\na_total{l="a"b"} 1\n');
    assert.notEqual(result.code, 0);
    assert.notEqual(output(result), '');
  });
});

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { createProcessMetrics, MetricsRegistry, renderExposition } from '../../src/metrics/index.js';

/** The value of the sample line `<series> <value>` on the page. */
function sampleValue(page: string, series: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `no sample ${series} on the page:\n${page}`);
  const text = line.slice(series.length + 1);
  return text === 'NaN' ? Number.NaN : Number(text);
}

/** Keeps the CPU busy until the process has used at least `microseconds` more of it. */
function burnCpu(microseconds: number): void {
  const start = process.cpuUsage();
  let spin = 0;
  while (process.cpuUsage(start).user + process.cpuUsage(start).system < microseconds) spin += Math.sqrt(spin + 1);
}

/** Blocks the event loop for `ms` of wall-clock time. */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('createProcessMetrics', () => {
  const registry = new MetricsRegistry();
  const processMetrics = createProcessMetrics(registry);
  after(() => processMetrics.stop());

  it('shows the four families with help and type', () => {
    const page = renderExposition(registry.snapshot());
    const headers = page.split('\n').filter((l) => l.startsWith('# TYPE'));
    assert.deepEqual(headers, [
      '# TYPE process_resident_memory_bytes gauge',
      '# TYPE process_cpu_seconds_total counter',
      '# TYPE process_start_time_seconds gauge',
      '# TYPE nodejs_eventloop_delay_seconds summary',
    ]);
    assert.match(page, /^# HELP process_resident_memory_bytes Resident memory size in bytes\.\n/);
    for (const quantile of ['0.5', '0.9', '0.99']) assert.match(page, new RegExp(`\\nnodejs_eventloop_delay_seconds\\{quantile="${quantile}"\\} `));
  });

  it('reports a resident memory above zero, in whole bytes', () => {
    const rss = sampleValue(renderExposition(registry.snapshot()), 'process_resident_memory_bytes');
    assert.ok(rss > 0, `rss ${rss}`);
    assert.ok(Number.isInteger(rss));
  });

  it('reports CPU seconds that grow as the process works', () => {
    const before = sampleValue(renderExposition(registry.snapshot()), 'process_cpu_seconds_total');
    burnCpu(20_000);
    const later = sampleValue(renderExposition(registry.snapshot()), 'process_cpu_seconds_total');
    assert.ok(before > 0, `cpu ${before}`);
    assert.ok(later >= before + 0.02, `cpu ${before} then ${later}`);
  });

  it('reports a start time in the past, no earlier than the process started', () => {
    const start = sampleValue(renderExposition(registry.snapshot()), 'process_start_time_seconds');
    const now = Date.now() / 1000;
    assert.ok(start <= now, `start ${start}, now ${now}`);
    assert.ok(start >= now - process.uptime() - 1, `start ${start}, uptime ${process.uptime()}`);
  });

  it('shows a blocked event loop in the delay quantiles, and counts the samples', async () => {
    const before = renderExposition(registry.snapshot()); // starts a new window
    await sleep(30); // the monitor measures from its first timer run after the reset
    blockEventLoop(100);
    await sleep(50); // lets the monitor's timer run after the block
    const page = renderExposition(registry.snapshot());
    const p99 = sampleValue(page, 'nodejs_eventloop_delay_seconds{quantile="0.99"}');
    assert.ok(p99 >= 0.05, `p99 ${p99} after blocking the loop for 100 ms`);
    assert.ok(sampleValue(page, 'nodejs_eventloop_delay_seconds_sum') >= sampleValue(before, 'nodejs_eventloop_delay_seconds_sum') + 0.05);
    assert.ok(sampleValue(page, 'nodejs_eventloop_delay_seconds_count') > sampleValue(before, 'nodejs_eventloop_delay_seconds_count'));
  });

  it('stops sampling after stop(): the quantiles turn NaN and the count stays', async () => {
    const other = new MetricsRegistry();
    const metrics = createProcessMetrics(other);
    await sleep(50);
    metrics.stop();
    const stopped = renderExposition(other.snapshot());
    assert.ok(sampleValue(stopped, 'nodejs_eventloop_delay_seconds_count') > 0);
    await sleep(50);
    const later = renderExposition(other.snapshot());
    assert.equal(sampleValue(later, 'nodejs_eventloop_delay_seconds_count'), sampleValue(stopped, 'nodejs_eventloop_delay_seconds_count'));
    assert.ok(Number.isNaN(sampleValue(later, 'nodejs_eventloop_delay_seconds{quantile="0.5"}')));
  });
});

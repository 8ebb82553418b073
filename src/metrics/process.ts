/**
 * The process' own metrics, under the names Prometheus' client libraries use so that common
 * dashboards work: resident memory, CPU seconds, start time and the event loop's delay.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { MetricsRegistry } from './registry.js';

/** How often the event-loop monitor's timer fires, in milliseconds (Node's default). */
export const EVENT_LOOP_RESOLUTION_MS = 10;

/** The event-loop delay quantiles on the page. */
export const EVENT_LOOP_QUANTILES: readonly number[] = Object.freeze([0.5, 0.9, 0.99]);

const NS_PER_S = 1e9;
const US_PER_S = 1e6;

/**
 * Registers the process metrics on `registry`:
 * - `process_resident_memory_bytes` (gauge; merges by sum: the memory of the whole service);
 * - `process_cpu_seconds_total` (counter; user + system time from `process.cpuUsage`);
 * - `process_start_time_seconds` (gauge; merges by max, so a worker's restart, which resets
 *   its counters, shows as a later start);
 * - `nodejs_eventloop_delay_seconds`, from `perf_hooks.monitorEventLoopDelay`: how late the
 *   monitor's timer fired. A summary rather than gauges: one family whose `quantile` label a
 *   query can select, and whose `_sum` and `_count` give the mean delay over any range. The
 *   quantiles (0.5, 0.9, 0.99; NaN when no sample) cover the time since the previous
 *   snapshot, i.e. since the last scrape (a quantile since start would stop moving), and
 *   merge across processes by max (an upper bound: the slowest worker is what users wait on);
 *   `_sum` and `_count` run from the start and add up. The monitor's reset drops the one
 *   interval in progress at each snapshot.
 *
 * `stop()` disables the monitor; the families stay registered.
 */
export function createProcessMetrics(registry: MetricsRegistry): { stop(): void } {
  registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', {
    collect: () => process.memoryUsage.rss(),
  });
  registry.counter('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', [], {
    collect: () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / US_PER_S;
    },
  });
  // The time origin is when this process started, as a wall-clock instant.
  const startSeconds = performance.timeOrigin / 1000;
  registry.gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', {
    aggregation: 'max',
    collect: () => startSeconds,
  });

  const monitor = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  monitor.enable();
  const totals = { sum: 0, count: 0 };
  // The monitor records whole intervals between its timer's runs; the delay is what exceeds the interval.
  const intervalNs = EVENT_LOOP_RESOLUTION_MS * 1e6;
  const delaySeconds = (ns: number) => Math.max(0, ns - intervalNs) / NS_PER_S;
  registry.summary('nodejs_eventloop_delay_seconds', 'Event loop delay in seconds, measured by a timer every 10 ms.', {
    quantiles: EVENT_LOOP_QUANTILES,
    collect: () => {
      const samples = monitor.count;
      const quantileValues = EVENT_LOOP_QUANTILES.map((q) => (samples === 0 ? Number.NaN : delaySeconds(monitor.percentile(q * 100))));
      if (samples > 0) {
        totals.sum += delaySeconds(monitor.mean) * samples;
        totals.count += samples;
      }
      monitor.reset();
      return { quantileValues, sum: totals.sum, count: totals.count };
    },
  });
  return { stop: () => monitor.disable() };
}

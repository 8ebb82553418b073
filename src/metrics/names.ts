/**
 * Metric and label names, checked when a family is registered: a bad name is a programming
 * error, found at start-up rather than by the scraper that rejects the page.
 * Data model: https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels
 */
import { unreachable } from '../util/unreachable.js';
import type { MetricType } from './snapshot.js';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label names the exposition itself writes: `le` on histogram buckets, `quantile` on summaries. */
export const RESERVED_LABEL_NAMES: readonly string[] = Object.freeze(['le', 'quantile']);

/** Throws a TypeError unless `name` is a valid metric name. */
export function assertMetricName(name: string): void {
  if (!METRIC_NAME.test(name)) throw new TypeError(`invalid metric name ${JSON.stringify(name)}: expected [a-zA-Z_:][a-zA-Z0-9_:]*`);
  // Names starting with __ are reserved for Prometheus' internal use.
  if (name.startsWith('__')) throw new TypeError(`invalid metric name ${JSON.stringify(name)}: the __ prefix is reserved`);
}

/** Throws a TypeError unless every label name is valid, not reserved and not repeated. */
export function assertLabelNames(metric: string, labelNames: readonly string[]): void {
  const seen = new Set<string>();
  for (const label of labelNames) {
    const what = `label name ${JSON.stringify(label)} of ${metric}`;
    if (!LABEL_NAME.test(label)) throw new TypeError(`invalid ${what}: expected [a-zA-Z_][a-zA-Z0-9_]*`);
    if (label.startsWith('__')) throw new TypeError(`invalid ${what}: the __ prefix is reserved`);
    if (RESERVED_LABEL_NAMES.includes(label)) throw new TypeError(`invalid ${what}: reserved for the exposition`);
    if (seen.has(label)) throw new TypeError(`invalid ${what}: given twice`);
    seen.add(label);
  }
}

/** Names of the samples a family writes on the page (a histogram `x` writes `x_bucket`, `x_sum`, `x_count`). */
export function sampleNames(name: string, type: MetricType): readonly string[] {
  switch (type) {
    case 'counter':
    case 'gauge':
      return [name];
    case 'histogram':
      return [name, `${name}_bucket`, `${name}_sum`, `${name}_count`];
    case 'summary':
      return [name, `${name}_sum`, `${name}_count`];
    default:
      return unreachable(type);
  }
}

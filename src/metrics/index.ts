/**
 * Metrics, the door of `metrics/`: a registry of counters, gauges and histograms
 * (`metrics/registry.ts`, `metrics/families.ts`), bounded series (`metrics/series-table.ts`),
 * snapshots as plain data that cross node:cluster IPC (`metrics/snapshot.ts`) and merge
 * across processes (`metrics/merge.ts`), the Prometheus text exposition format 0.0.4
 * (`metrics/exposition.ts`) and the process' own metrics (`metrics/process.ts`).
 */
export {
  DEFAULT_BUCKETS,
  MetricsRegistry,
  type CounterOptions,
  type GaugeOptions,
  type HistogramOptions,
  type MetricsRegistryOptions,
  type SummaryOptions,
} from './registry.js';
export type { Collected, Counter, Gauge, Histogram, SummaryValues } from './families.js';
export { DEFAULT_MAX_SERIES, OVERFLOW_LABEL_VALUE } from './series-table.js';
export type {
  Aggregation,
  CounterFamilySnapshot,
  FamilySnapshot,
  GaugeFamilySnapshot,
  HistogramFamilySnapshot,
  HistogramSeries,
  MetricsSnapshot,
  MetricType,
  SampleValue,
  SummaryFamilySnapshot,
  SummarySeries,
  ValueSeries,
} from './snapshot.js';
export { mergeSnapshots } from './merge.js';
export { EXPOSITION_CONTENT_TYPE, renderExposition } from './exposition.js';
export { createProcessMetrics, EVENT_LOOP_QUANTILES } from './process.js';

/**
 * A registry's state as plain data: what a worker sends its primary over node:cluster IPC,
 * what `mergeSnapshots` adds up and what `renderExposition` writes. Everything survives
 * `JSON.stringify`: numbers that JSON cannot hold (NaN, ±Infinity) travel as the strings the
 * exposition spells them with.
 */

/** How a gauge family merges across worker processes. */
export type Aggregation = 'sum' | 'max';

/** A sample's value: a finite number, or the exposition's spelling of a non-finite one. */
export type SampleValue = number | 'NaN' | '+Inf' | '-Inf';

/** What every family records. */
interface FamilyDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  /** The family's bound on series; merging keeps it too. */
  readonly maxSeries: number;
}

/** One series of a counter or a gauge. */
export interface ValueSeries {
  readonly labelValues: readonly string[];
  readonly value: SampleValue;
}

/** One series of a histogram. */
export interface HistogramSeries {
  readonly labelValues: readonly string[];
  /** Observations <= each bound of the family's `buckets`, cumulative, then the +Inf bucket (= count). */
  readonly cumulativeCounts: readonly number[];
  readonly sum: SampleValue;
  readonly count: number;
}

/** One series of a summary. */
export interface SummarySeries {
  readonly labelValues: readonly string[];
  /** One value per quantile of the family, in the same order. */
  readonly quantileValues: readonly SampleValue[];
  readonly sum: SampleValue;
  readonly count: number;
}

export interface CounterFamilySnapshot extends FamilyDefinition {
  readonly type: 'counter';
  readonly series: readonly ValueSeries[];
}

export interface GaugeFamilySnapshot extends FamilyDefinition {
  readonly type: 'gauge';
  readonly aggregation: Aggregation;
  readonly series: readonly ValueSeries[];
}

export interface HistogramFamilySnapshot extends FamilyDefinition {
  readonly type: 'histogram';
  /** Upper bounds, finite and increasing; the +Inf bucket is implicit. */
  readonly buckets: readonly number[];
  readonly series: readonly HistogramSeries[];
}

export interface SummaryFamilySnapshot extends FamilyDefinition {
  readonly type: 'summary';
  /** Quantiles in [0, 1], increasing. */
  readonly quantiles: readonly number[];
  readonly series: readonly SummarySeries[];
}

/** The kinds of family, as the `# TYPE` line names them. */
export type MetricType = FamilySnapshot['type'];

export type FamilySnapshot = CounterFamilySnapshot | GaugeFamilySnapshot | HistogramFamilySnapshot | SummaryFamilySnapshot;

/** Families in registration order, each one's series in order of first use. */
export interface MetricsSnapshot {
  readonly families: readonly FamilySnapshot[];
}

/** A number as a snapshot holds it. */
export function toSampleValue(value: number): SampleValue {
  if (Number.isFinite(value)) return value;
  if (Number.isNaN(value)) return 'NaN';
  return value > 0 ? '+Inf' : '-Inf';
}

/** A snapshot's value as a number again. */
export function fromSampleValue(value: SampleValue): number {
  switch (value) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
    default:
      return value;
  }
}

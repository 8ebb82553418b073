/**
 * The registry: families by registration order, each name checked once at start-up, and the
 * snapshot that carries them out of the process.
 */
import {
  CounterFamily,
  GaugeFamily,
  HistogramFamily,
  SummaryFamily,
  type Collected,
  type Counter,
  type Family,
  type FamilyDefinition,
  type Gauge,
  type Histogram,
  type SummaryValues,
} from './families.js';
import { assertLabelNames, assertMetricName, sampleNames } from './names.js';
import { assertMaxSeries, DEFAULT_MAX_SERIES } from './series-table.js';
import type { Aggregation, MetricsSnapshot, MetricType } from './snapshot.js';

/** Prometheus' default histogram buckets (seconds, for request durations). */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

export interface MetricsRegistryOptions {
  /** Bound on the series of each family unless the family says otherwise (default 1000). */
  readonly maxSeries?: number;
}

export interface CounterOptions {
  readonly maxSeries?: number;
  /** Reports the running totals (never negative) when a snapshot is taken, e.g. CPU seconds. */
  readonly collect?: () => Collected;
}

export interface GaugeOptions {
  readonly labelNames?: readonly string[];
  /** How the family merges across worker processes (default `sum`). */
  readonly aggregation?: Aggregation;
  /** Reports the values when a snapshot is taken; they replace the family's series. */
  readonly collect?: () => Collected;
  readonly maxSeries?: number;
}

export interface HistogramOptions {
  readonly labelNames?: readonly string[];
  /** Finite upper bounds, increasing; the +Inf bucket is added (default `DEFAULT_BUCKETS`). */
  readonly buckets?: readonly number[];
  readonly maxSeries?: number;
}

export interface SummaryOptions {
  /** Quantiles in [0, 1], increasing. */
  readonly quantiles: readonly number[];
  /** Reports the quantile values, sum and count when a snapshot is taken. */
  readonly collect: () => SummaryValues;
}

/**
 * Metric families of one process. Registering a name twice (or a name another family's
 * samples use, as `x_count` beside the histogram `x`) throws a TypeError, as do invalid names.
 */
export class MetricsRegistry {
  readonly #families: Family[] = [];
  readonly #taken = new Set<string>();
  readonly #maxSeries: number;

  constructor(options: MetricsRegistryOptions = {}) {
    this.#maxSeries = options.maxSeries ?? DEFAULT_MAX_SERIES;
    assertMaxSeries('MetricsRegistry', this.#maxSeries);
  }

  /** A counter; an unlabelled one shows `name 0` before its first inc. */
  counter(name: string, help: string, labelNames: readonly string[] = [], options: CounterOptions = {}): Counter {
    const family = new CounterFamily(this.#define(name, help, 'counter', labelNames, options.maxSeries), options.collect);
    return this.#add(family);
  }

  gauge(name: string, help: string, options: GaugeOptions = {}): Gauge {
    const aggregation = options.aggregation ?? 'sum';
    if (aggregation !== 'sum' && aggregation !== 'max') throw new TypeError(`${name}: unknown aggregation ${JSON.stringify(aggregation)}`);
    const definition = this.#define(name, help, 'gauge', options.labelNames ?? [], options.maxSeries);
    return this.#add(new GaugeFamily(definition, aggregation, options.collect));
  }

  histogram(name: string, help: string, options: HistogramOptions = {}): Histogram {
    const buckets = Object.freeze([...(options.buckets ?? DEFAULT_BUCKETS)]);
    assertIncreasing(name, 'buckets', buckets, -Infinity, Infinity);
    const definition = this.#define(name, help, 'histogram', options.labelNames ?? [], options.maxSeries);
    return this.#add(new HistogramFamily(definition, buckets));
  }

  /** A summary whose values `collect` reports (this library estimates no quantiles); unlabelled. */
  summary(name: string, help: string, options: SummaryOptions): void {
    const quantiles = Object.freeze([...options.quantiles]);
    assertIncreasing(name, 'quantiles', quantiles, 0, 1);
    this.#add(new SummaryFamily(this.#define(name, help, 'summary', [], undefined), quantiles, options.collect));
  }

  /** Every family as plain data, in registration order; runs the `collect` callbacks. */
  snapshot(): MetricsSnapshot {
    return { families: this.#families.map((family) => family.snapshot()) };
  }

  #add<F extends Family>(family: F): F {
    this.#families.push(family);
    return family;
  }

  #define(name: string, help: string, type: MetricType, labelNames: readonly string[], maxSeries: number | undefined): FamilyDefinition {
    assertMetricName(name);
    assertLabelNames(name, labelNames);
    const names = sampleNames(name, type);
    const clash = names.find((n) => this.#taken.has(n));
    if (clash !== undefined) throw new TypeError(`${name}: the name ${clash} is already registered`);
    const definition = { name, help, labelNames: Object.freeze([...labelNames]), maxSeries: maxSeries ?? this.#maxSeries };
    assertMaxSeries(name, definition.maxSeries);
    for (const n of names) this.#taken.add(n);
    return definition;
  }
}

/** Throws a TypeError unless `values` are finite, within [min, max] and strictly increasing. */
function assertIncreasing(metric: string, what: string, values: readonly number[], min: number, max: number): void {
  values.forEach((value, i) => {
    if (!Number.isFinite(value) || value < min || value > max) {
      const range = Number.isFinite(min) ? ` in [${min}, ${max}]` : ' (the +Inf bucket is implicit)';
      throw new TypeError(`${metric}: ${what} must be finite numbers${range}, not ${value}`);
    }
    if (i > 0 && !(value > values[i - 1]!)) throw new TypeError(`${metric}: ${what} must increase, ${value} follows ${values[i - 1]}`);
  });
}

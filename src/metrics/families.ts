/**
 * The four kinds of family: what the code being measured calls (`Counter`, `Gauge`,
 * `Histogram`) and how each turns into a snapshot. Counters and histograms are on the request
 * path: one table lookup and a few additions, nothing else.
 */
import { SeriesTable } from './series-table.js';
import {
  toSampleValue,
  type Aggregation,
  type CounterFamilySnapshot,
  type FamilySnapshot,
  type GaugeFamilySnapshot,
  type HistogramFamilySnapshot,
  type SummaryFamilySnapshot,
  type ValueSeries,
} from './snapshot.js';

/** A counter: goes up only. Label values in the family's label-name order. */
export interface Counter {
  /** Adds `by` (default 1, never negative) to the series of these label values. */
  inc(labelValues?: readonly string[], by?: number): void;
}

/** A gauge: a value that goes up and down. */
export interface Gauge {
  set(labelValues: readonly string[], value: number): void;
  inc(labelValues?: readonly string[], by?: number): void;
  dec(labelValues?: readonly string[], by?: number): void;
}

/** A histogram: counts observations into buckets, with their sum and count. */
export interface Histogram {
  /** Counts `value` (never NaN) into the first bucket whose bound is >= it. */
  observe(labelValues: readonly string[], value: number): void;
}

/**
 * What a `collect` callback reports when a snapshot is taken: a number for an unlabelled
 * family, or each series' label values and value. It replaces the family's series.
 */
export type Collected = number | readonly (readonly [labelValues: readonly string[], value: number])[];

/** What a summary's `collect` callback reports: one value per quantile, in order, and the running sum and count. */
export interface SummaryValues {
  readonly quantileValues: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** A family's name, help, label names and bound, validated by the registry. */
export interface FamilyDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly maxSeries: number;
}

/** What the registry keeps of each family. */
export interface Family {
  snapshot(): FamilySnapshot;
}

const NO_LABEL_VALUES: readonly string[] = Object.freeze([]);

interface ValueCell {
  value: number;
}

const newValueCell = (): ValueCell => ({ value: 0 });

function valueSeries(table: SeriesTable<ValueCell>): ValueSeries[] {
  return table.entries().map(({ labelValues, series }) => ({ labelValues, value: toSampleValue(series.value) }));
}

/**
 * Replaces the table's series by what `collect` reported. Two reports that land in one series
 * (past the bound) combine with `combine`.
 */
function applyCollected(table: SeriesTable<ValueCell>, collected: Collected, combine: (a: number, b: number) => number, check: (value: number) => void): void {
  table.clear();
  const reports: readonly (readonly [readonly string[], number])[] = typeof collected === 'number' ? [[NO_LABEL_VALUES, collected]] : collected;
  const seen = new Set<ValueCell>();
  for (const [labelValues, value] of reports) {
    check(value);
    const cell = table.get(labelValues);
    cell.value = seen.has(cell) ? combine(cell.value, value) : value;
    seen.add(cell);
  }
}

const add = (a: number, b: number) => a + b;

export class CounterFamily implements Counter, Family {
  readonly #definition: FamilyDefinition;
  readonly #table: SeriesTable<ValueCell>;
  readonly #collect: (() => Collected) | undefined;

  constructor(definition: FamilyDefinition, collect: (() => Collected) | undefined) {
    this.#definition = definition;
    this.#table = new SeriesTable(definition.name, definition.labelNames.length, definition.maxSeries, newValueCell);
    this.#collect = collect;
  }

  inc(labelValues: readonly string[] = NO_LABEL_VALUES, by = 1): void {
    if (!(by >= 0)) throw new TypeError(`${this.#definition.name}: a counter only goes up, not by ${by}`);
    this.#table.get(labelValues).value += by;
  }

  snapshot(): CounterFamilySnapshot {
    if (this.#collect) {
      applyCollected(this.#table, this.#collect(), add, (value) => {
        if (!(value >= 0)) throw new TypeError(`${this.#definition.name}: collect reported ${value}; a counter is never negative`);
      });
    }
    return { type: 'counter', ...this.#definition, series: valueSeries(this.#table) };
  }
}

export class GaugeFamily implements Gauge, Family {
  readonly #definition: FamilyDefinition;
  readonly #aggregation: Aggregation;
  readonly #table: SeriesTable<ValueCell>;
  readonly #collect: (() => Collected) | undefined;

  constructor(definition: FamilyDefinition, aggregation: Aggregation, collect: (() => Collected) | undefined) {
    this.#definition = definition;
    this.#aggregation = aggregation;
    this.#table = new SeriesTable(definition.name, definition.labelNames.length, definition.maxSeries, newValueCell);
    this.#collect = collect;
  }

  set(labelValues: readonly string[], value: number): void {
    this.#table.get(labelValues).value = value;
  }

  inc(labelValues: readonly string[] = NO_LABEL_VALUES, by = 1): void {
    this.#table.get(labelValues).value += by;
  }

  dec(labelValues: readonly string[] = NO_LABEL_VALUES, by = 1): void {
    this.#table.get(labelValues).value -= by;
  }

  snapshot(): GaugeFamilySnapshot {
    if (this.#collect) applyCollected(this.#table, this.#collect(), this.#aggregation === 'max' ? Math.max : add, () => {});
    return { type: 'gauge', ...this.#definition, aggregation: this.#aggregation, series: valueSeries(this.#table) };
  }
}

interface HistogramCell {
  /** Observations per bucket (not cumulative), the last for +Inf. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export class HistogramFamily implements Histogram, Family {
  readonly #definition: FamilyDefinition;
  readonly #buckets: readonly number[];
  readonly #table: SeriesTable<HistogramCell>;

  /** `buckets`: finite upper bounds, increasing (the registry checks). */
  constructor(definition: FamilyDefinition, buckets: readonly number[]) {
    this.#definition = definition;
    this.#buckets = buckets;
    const newCell = (): HistogramCell => ({ counts: Array.from({ length: buckets.length + 1 }, () => 0), sum: 0, count: 0 });
    this.#table = new SeriesTable(definition.name, definition.labelNames.length, definition.maxSeries, newCell);
  }

  observe(labelValues: readonly string[], value: number): void {
    // NaN would sit in no bucket and turn the sum into NaN for good.
    if (Number.isNaN(value)) throw new TypeError(`${this.#definition.name}: cannot observe NaN`);
    const cell = this.#table.get(labelValues);
    const buckets = this.#buckets;
    let i = 0;
    while (i < buckets.length && value > buckets[i]!) i++;
    cell.counts[i]!++;
    cell.sum += value;
    cell.count++;
  }

  snapshot(): HistogramFamilySnapshot {
    const series = this.#table.entries().map(({ labelValues, series: cell }) => {
      let running = 0;
      const cumulativeCounts = cell.counts.map((n) => (running += n));
      return { labelValues, cumulativeCounts, sum: toSampleValue(cell.sum), count: cell.count };
    });
    return { type: 'histogram', ...this.#definition, buckets: this.#buckets, series };
  }
}

/** A summary whose values a callback reports (this library estimates no quantiles itself); unlabelled. */
export class SummaryFamily implements Family {
  readonly #definition: FamilyDefinition;
  readonly #quantiles: readonly number[];
  readonly #collect: () => SummaryValues;

  constructor(definition: FamilyDefinition, quantiles: readonly number[], collect: () => SummaryValues) {
    this.#definition = definition;
    this.#quantiles = quantiles;
    this.#collect = collect;
  }

  snapshot(): SummaryFamilySnapshot {
    const { quantileValues, sum, count } = this.#collect();
    if (quantileValues.length !== this.#quantiles.length) {
      throw new TypeError(`${this.#definition.name}: collect reported ${quantileValues.length} quantile values for ${this.#quantiles.length} quantiles`);
    }
    const series = [{ labelValues: NO_LABEL_VALUES, quantileValues: quantileValues.map(toSampleValue), sum: toSampleValue(sum), count }];
    return { type: 'summary', ...this.#definition, quantiles: this.#quantiles, series };
  }
}

/**
 * The series of one family, found by their label values, bounded in number. A counter's inc
 * and a histogram's observe run once per HTTP request, so a lookup allocates nothing: nested
 * maps, one level per label (label values are any text, so no separator could join them into
 * one key safely).
 */

/** Most series one family holds unless told otherwise. */
export const DEFAULT_MAX_SERIES = 1000;

/** The value of every label of the series that takes in combinations past the bound. */
export const OVERFLOW_LABEL_VALUE = 'other';

/** A series and the label values it was first used with. */
export interface SeriesEntry<S> {
  readonly labelValues: readonly string[];
  readonly series: S;
}

/** Throws a TypeError unless `maxSeries` is a whole number >= 1. */
export function assertMaxSeries(metric: string, maxSeries: number): void {
  if (!Number.isInteger(maxSeries) || maxSeries < 1) throw new TypeError(`${metric}: maxSeries must be a whole number >= 1, not ${maxSeries}`);
}

/**
 * Series by label values, in order of first use. At most `maxSeries` series: once
 * `maxSeries - 1` combinations are held, every new combination lands in the one series whose
 * label values are all `"other"` (so the family's last slot is that series). Label values
 * come from clients in some families (an HTTP method), and each series costs memory here and
 * in Prometheus.
 */
export class SeriesTable<S> {
  readonly #metric: string;
  readonly #labelCount: number;
  readonly #maxSeries: number;
  readonly #create: () => S;
  readonly #overflow: readonly string[];
  #root = new Map<string, unknown>();
  #entries: SeriesEntry<S>[] = [];

  /** `create` makes a new series' state. An unlabelled family has its one series from the start. */
  constructor(metric: string, labelCount: number, maxSeries: number, create: () => S) {
    assertMaxSeries(metric, maxSeries);
    this.#metric = metric;
    this.#labelCount = labelCount;
    this.#maxSeries = maxSeries;
    this.#create = create;
    this.#overflow = Object.freeze(Array.from({ length: labelCount }, () => OVERFLOW_LABEL_VALUE));
    this.clear();
  }

  /** The series for these label values (in label-name order), made on first use. */
  get(labelValues: readonly string[]): S {
    if (labelValues.length !== this.#labelCount) {
      throw new TypeError(`${this.#metric}: expected ${this.#labelCount} label values, got ${labelValues.length}`);
    }
    if (this.#labelCount === 0) return this.#entries[0]!.series;
    return this.#find(labelValues) ?? this.#add(labelValues);
  }

  /** Every series, in order of first use. */
  entries(): readonly SeriesEntry<S>[] {
    return this.#entries;
  }

  /** Forgets every series (an unlabelled family gets a fresh one). */
  clear(): void {
    this.#root = new Map();
    this.#entries = this.#labelCount === 0 ? [{ labelValues: [], series: this.#create() }] : [];
  }

  #find(labelValues: readonly string[]): S | undefined {
    let node = this.#root;
    const last = labelValues.length - 1;
    for (let i = 0; i < last; i++) {
      const next = node.get(labelValues[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) return undefined;
      node = next;
    }
    return node.get(labelValues[last]!) as S | undefined;
  }

  #add(labelValues: readonly string[]): S {
    if (this.#entries.length < this.#maxSeries - 1) return this.#insert(labelValues);
    return this.#find(this.#overflow) ?? this.#insert(this.#overflow);
  }

  #insert(labelValues: readonly string[]): S {
    let node = this.#root;
    const last = labelValues.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(labelValues[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(labelValues[i]!, next);
      }
      node = next;
    }
    const series = this.#create();
    node.set(labelValues[last]!, series);
    // A copy: the caller may reuse its array for the next request.
    this.#entries.push({ labelValues: Object.freeze([...labelValues]), series });
    return series;
  }
}

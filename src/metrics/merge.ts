/**
 * One snapshot out of several processes' (a node:cluster primary asks each worker for its
 * own): what one registry would show had it seen every process' observations.
 */
import { unreachable } from '../util/unreachable.js';
import { OVERFLOW_LABEL_VALUE } from './series-table.js';
import {
  fromSampleValue,
  toSampleValue,
  type CounterFamilySnapshot,
  type FamilySnapshot,
  type GaugeFamilySnapshot,
  type HistogramFamilySnapshot,
  type HistogramSeries,
  type MetricsSnapshot,
  type SampleValue,
  type SummaryFamilySnapshot,
  type SummarySeries,
  type ValueSeries,
} from './snapshot.js';

/**
 * Merges snapshots family by family (matched by name) and series by series (matched by label
 * values). Counters and histograms add up; a gauge follows its family's aggregation (`sum`, or
 * `max` where NaN loses to any number); a summary's quantiles take the max (a quantile of the
 * whole cannot be computed from the parts; the max is an upper bound), its sum and count add
 * up. Families and series come in order of first appearance, so families present in only some
 * snapshots are kept. A family's `maxSeries` still holds: series past it fold into the
 * `"other"` series.
 *
 * Families that share a name but differ in type, label names, aggregation, buckets or
 * quantiles cannot merge: that throws a TypeError. Every process runs the same code, so a
 * difference is a bug to find, not data to guess at.
 */
export function mergeSnapshots(snapshots: readonly MetricsSnapshot[]): MetricsSnapshot {
  const groups = new Map<string, FamilySnapshot[]>();
  for (const snapshot of snapshots) {
    for (const family of snapshot.families) {
      const group = groups.get(family.name);
      if (group) group.push(family);
      else groups.set(family.name, [family]);
    }
  }
  return { families: [...groups.values()].map(mergeFamily) };
}

function mergeFamily(group: readonly FamilySnapshot[]): FamilySnapshot {
  const first = group[0]!;
  for (const other of group) assertSameDefinition(first, other);
  switch (first.type) {
    case 'counter': {
      const series = group.filter((f): f is CounterFamilySnapshot => f.type === 'counter').map((f) => f.series);
      return { ...first, series: mergeSeries(first, series, combineValues(add)) };
    }
    case 'gauge': {
      const series = group.filter((f): f is GaugeFamilySnapshot => f.type === 'gauge').map((f) => f.series);
      return { ...first, series: mergeSeries(first, series, combineValues(first.aggregation === 'max' ? max : add)) };
    }
    case 'histogram': {
      const series = group.filter((f): f is HistogramFamilySnapshot => f.type === 'histogram').map((f) => f.series);
      return { ...first, series: mergeSeries(first, series, addHistograms) };
    }
    case 'summary': {
      const series = group.filter((f): f is SummaryFamilySnapshot => f.type === 'summary').map((f) => f.series);
      return { ...first, series: mergeSeries(first, series, combineSummaries) };
    }
    default:
      return unreachable(first);
  }
}

function assertSameDefinition(first: FamilySnapshot, other: FamilySnapshot): void {
  const differs = (what: string) => new TypeError(`cannot merge the families ${first.name}: their ${what} differ`);
  if (first.type !== other.type) throw differs('types');
  if (!sameList(first.labelNames, other.labelNames)) throw differs('label names');
  if (first.type === 'gauge' && other.type === 'gauge' && first.aggregation !== other.aggregation) throw differs('aggregations');
  if (first.type === 'histogram' && other.type === 'histogram' && !sameList(first.buckets, other.buckets)) throw differs('buckets');
  if (first.type === 'summary' && other.type === 'summary' && !sameList(first.quantiles, other.quantiles)) throw differs('quantiles');
}

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

interface Labelled {
  readonly labelValues: readonly string[];
}

/** The series of every list, the same label values combined, in order of first appearance, bounded. */
function mergeSeries<S extends Labelled>(family: FamilySnapshot, lists: readonly (readonly S[])[], combine: (kept: S, added: S) => S): S[] {
  const merged = new Map<string, S>();
  const overflow = family.labelNames.map(() => OVERFLOW_LABEL_VALUE);
  for (const list of lists) {
    for (const series of list) {
      // JSON keeps label values apart whatever text they hold; merging runs once per scrape.
      let key = JSON.stringify(series.labelValues);
      let added = series;
      if (!merged.has(key) && overflow.length > 0 && merged.size >= family.maxSeries - 1) {
        key = JSON.stringify(overflow);
        added = { ...series, labelValues: overflow };
      }
      const kept = merged.get(key);
      merged.set(key, kept ? combine(kept, added) : added);
    }
  }
  return [...merged.values()];
}

const add = (a: number, b: number) => a + b;

/** The larger, NaN only when both are: a process with nothing to report does not hide the others. */
const max = (a: number, b: number) => (Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b));

const combineSamples = (a: SampleValue, b: SampleValue, by: (a: number, b: number) => number): SampleValue =>
  toSampleValue(by(fromSampleValue(a), fromSampleValue(b)));

const combineValues = (by: (a: number, b: number) => number) => (kept: ValueSeries, added: ValueSeries): ValueSeries => ({
  labelValues: kept.labelValues,
  value: combineSamples(kept.value, added.value, by),
});

const addHistograms = (kept: HistogramSeries, added: HistogramSeries): HistogramSeries => ({
  labelValues: kept.labelValues,
  cumulativeCounts: kept.cumulativeCounts.map((n, i) => n + added.cumulativeCounts[i]!),
  sum: combineSamples(kept.sum, added.sum, add),
  count: kept.count + added.count,
});

const combineSummaries = (kept: SummarySeries, added: SummarySeries): SummarySeries => ({
  labelValues: kept.labelValues,
  quantileValues: kept.quantileValues.map((q, i) => combineSamples(q, added.quantileValues[i]!, max)),
  sum: combineSamples(kept.sum, added.sum, add),
  count: kept.count + added.count,
});

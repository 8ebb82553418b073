/**
 * The text exposition format, version 0.0.4: what `GET /metrics` answers.
 * https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */
import { unreachable } from '../util/unreachable.js';
import type { FamilySnapshot, MetricsSnapshot, SampleValue } from './snapshot.js';

/** The Content-Type of a page `renderExposition` writes. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * The page for a snapshot: per family `# HELP` and `# TYPE`, then its samples, families and
 * series in the snapshot's order, so equal snapshots give equal pages. Empty for no families.
 */
export function renderExposition(snapshot: MetricsSnapshot): string {
  const lines: string[] = [];
  for (const family of snapshot.families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    writeSamples(lines, family);
  }
  return lines.map((line) => `${line}\n`).join('');
}

function writeSamples(lines: string[], family: FamilySnapshot): void {
  const { name, labelNames } = family;
  switch (family.type) {
    case 'counter':
    case 'gauge':
      for (const s of family.series) lines.push(`${name}${formatLabels(labelNames, s.labelValues)} ${formatSampleValue(s.value)}`);
      return;
    case 'histogram':
      for (const s of family.series) {
        s.cumulativeCounts.forEach((count, i) => {
          const le = i < family.buckets.length ? formatSampleValue(family.buckets[i]!) : '+Inf';
          lines.push(`${name}_bucket${formatLabels(labelNames, s.labelValues, 'le', le)} ${formatSampleValue(count)}`);
        });
        writeSumAndCount(lines, name, formatLabels(labelNames, s.labelValues), s);
      }
      return;
    case 'summary':
      for (const s of family.series) {
        s.quantileValues.forEach((value, i) => {
          const quantile = formatSampleValue(family.quantiles[i]!);
          lines.push(`${name}${formatLabels(labelNames, s.labelValues, 'quantile', quantile)} ${formatSampleValue(value)}`);
        });
        writeSumAndCount(lines, name, formatLabels(labelNames, s.labelValues), s);
      }
      return;
    default:
      unreachable(family);
  }
}

function writeSumAndCount(lines: string[], name: string, labels: string, s: { readonly sum: SampleValue; readonly count: number }): void {
  lines.push(`${name}_sum${labels} ${formatSampleValue(s.sum)}`, `${name}_count${labels} ${formatSampleValue(s.count)}`);
}

/** `{a="x",b="y"}`, with the exposition's own label (`le`, `quantile`) last; empty when there is none. */
function formatLabels(names: readonly string[], values: readonly string[], extraName?: string, extraValue?: string): string {
  const pairs = names.map((n, i) => `${n}="${escapeLabelValue(values[i]!)}"`);
  if (extraName !== undefined) pairs.push(`${extraName}="${extraValue}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/**
 * A value as Prometheus reads it (Go's ParseFloat): integers without a decimal point, other
 * numbers in JavaScript's shortest round-trip form, and `+Inf`, `-Inf`, `NaN`.
 */
export function formatSampleValue(value: SampleValue): string {
  if (typeof value === 'string') return value;
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value); // -0 prints as 0
}

/** HELP text: backslash and line feed escaped. */
export function escapeHelp(help: string): string {
  return help.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** A label value: backslash, double quote and line feed escaped. */
export function escapeLabelValue(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

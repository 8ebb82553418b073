/**
 * Reading the shipped systemd files (a unit and its drop-ins) as systemd would, for the keys the
 * tests look at: systemd itself cannot run in a test.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** `[Section]` -> key -> every value, in order (systemd keys may repeat). */
export type UnitSections = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

/** The sections of the unit file at `path`; comments and blank lines dropped. */
export function readUnitFile(path: string): UnitSections {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const [index, raw] of readFileSync(path, 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]!) ?? new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(current && eq > 0, `${path}:${index + 1}: not a key=value line inside a section: ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/** Every value of `key` in [Service], in order. */
export function serviceValues(unit: UnitSections, key: string): readonly string[] {
  return unit.get('Service')?.get(key) ?? [];
}

/**
 * The variables the `Environment=` lines of `units` set, a later file's line winning as a drop-in's
 * does over its unit. Only one plain `NAME=value` a line: quoting and several assignments on one
 * line are refused rather than read wrong.
 */
export function environmentOf(...units: readonly UnitSections[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const unit of units) {
    for (const assignment of serviceValues(unit, 'Environment')) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=([^\s"'\\]*)$/.exec(assignment);
      assert.ok(match, `Environment=${assignment}: not one plain NAME=value`);
      env[match[1]!] = match[2]!;
    }
  }
  return env;
}

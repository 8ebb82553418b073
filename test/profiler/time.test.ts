import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatProfileTime } from '../../src/profiler/time.js';

describe('formatProfileTime', () => {
  const cases: [string, number, string, string][] = [
    ['Madrid in winter', Date.UTC(2026, 10, 25, 22, 32, 13, 999), 'Europe/Madrid', '2026-11-25 23:32:13 +01:00'],
    ['Madrid, the last instant before the March change', Date.UTC(2026, 2, 29, 0, 59, 59), 'Europe/Madrid', '2026-03-29 01:59:59 +01:00'],
    ['Madrid, the first instant after the March change', Date.UTC(2026, 2, 29, 1, 0, 0), 'Europe/Madrid', '2026-03-29 03:00:00 +02:00'],
    ['Madrid, the first 02:30 of the October change', Date.UTC(2026, 9, 25, 0, 30, 0), 'Europe/Madrid', '2026-10-25 02:30:00 +02:00'],
    ['Madrid, the second 02:30 of the October change', Date.UTC(2026, 9, 25, 1, 30, 0), 'Europe/Madrid', '2026-10-25 02:30:00 +01:00'],
    ['a half-hour zone', Date.UTC(2026, 0, 1, 0, 0, 0), 'Asia/Kolkata', '2026-01-01 05:30:00 +05:30'],
    ['a zone west of UTC', Date.UTC(2026, 0, 1, 0, 0, 0), 'America/St_Johns', '2025-12-31 20:30:00 -03:30'],
    ['UTC', Date.UTC(2026, 0, 1, 0, 0, 0), 'UTC', '2026-01-01 00:00:00 +00:00'],
  ];
  for (const [name, instant, zone, expected] of cases) {
    it(`writes ${name} as ${expected}`, () => assert.equal(formatProfileTime(instant, zone), expected, name));
  }
});

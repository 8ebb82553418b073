/**
 * The log files of a test run: the error log's text lines and the access log's JSON lines,
 * each from its own daily files in a log directory.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ERROR_FILE = /^[a-z]+-\d{4}-\d{2}-\d{2}\.log$/;
const ACCESS_FILE = /^[a-z]+-access-\d{4}-\d{2}-\d{2}\.log$/;

function readFiles(dir: string, pattern: RegExp): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir).filter((name) => pattern.test(name)).sort().map((name) => readFileSync(join(dir, name), 'utf8')).join('');
}

/** The error log's text, every daily file of `dir` in date order. */
export function readErrorLog(dir: string): string {
  return readFiles(dir, ERROR_FILE);
}

/** The access log's entries of `dir`, parsed, in date order. */
export function readAccessLog(dir: string): Record<string, unknown>[] {
  return readFiles(dir, ACCESS_FILE).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The log files a fuzz run leaves: every entry one line `<YYYY-MM-DD HH:MM:SS>
 * <channel>.<LEVEL>: ...`, none longer than 8 KiB, no configured secret, and no CRITICAL
 * entry (each one is an unexpected error).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Violation } from './invariants.js';

const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [a-z][a-z_]*\.(?:DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL): /;
const MAX_LINE_BYTES = 8 * 1024;
const PROVOKED_CRITICAL = /^Transfer-Encoding ".*" is not supported\.$/;

export interface LogVerdict {
  readonly files: number;
  readonly lines: number;
  readonly checks: number;
  /** Distinct problems, each with one example line. */
  readonly problems: Violation[];
}

export function checkLogDir(dir: string, appEnv: string, secrets: readonly string[]): LogVerdict {
  const names = readdirSync(dir).sort();
  const problems: LogVerdict['problems'] = [];
  const seen = new Set<string>();
  const report = (invariant: Violation['invariant'], key: string, detail: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ invariant, detail });
  };
  let lines = 0;
  let checks = 0;
  for (const name of names) {
    checks++;
    if (!new RegExp(`^${appEnv}-\\d{4}-\\d{2}-\\d{2}\\.log$`).test(name)) report('log-line', `name ${name}`, `unexpected file name ${name}`);
    const bytes = readFileSync(join(dir, name));
    checks++;
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) report('log-line', `end ${name}`, `${name} does not end with a newline`);
    for (const secret of secrets) {
      checks++;
      if (bytes.includes(secret)) report('no-secret', `secret ${name}`, `${name} contains a configured secret value`);
    }
    const text = bytes.toString('utf8');
    checks++;
    if (!Buffer.from(text, 'utf8').equals(bytes)) report('log-line', `utf8 ${name}`, `${name} is not valid UTF-8`);
    for (const line of text.split('\n')) {
      if (line === '') continue;
      lines++;
      checks += 3;
      const size = Buffer.byteLength(line) + 1;
      if (!LINE.test(line)) report('log-line', `shape`, `not an entry line: ${JSON.stringify(line.slice(0, 200))}`);
      if (/[\x00-\x1f\x7f\u0080-\u009f]/.test(line)) report('log-line', 'control', `raw control character in ${JSON.stringify(line.slice(0, 200))}`);
      if (size > MAX_LINE_BYTES) report('log-line', `size`, `a line of ${size} bytes: ${JSON.stringify(line.slice(0, 160))}`);
      const critical = /^\S+ \S+ [a-z_]+\.CRITICAL: (.{0,160})/.exec(line);
      // A 501 for a transfer coding the client chose is provoked; every other CRITICAL is not.
      if (critical && !PROVOKED_CRITICAL.test(critical[1]!)) report('no-5xx', `critical ${critical[1]!.slice(0, 60)}`, `CRITICAL entry: ${JSON.stringify(line.slice(0, 400))}`);
    }
  }
  return { files: names.length, lines, checks, problems };
}

/**
 * The log files a fuzz run leaves: in the error log every entry one line `<YYYY-MM-DD HH:MM:SS>
 * <channel>.<LEVEL>: ...`, and no CRITICAL entry (each one is an unexpected error); in the access
 * log every line one JSON object with the access line's keys in order (or a sink's notice);
 * in both none longer than 8 KiB, no raw control character and no configured secret.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Violation } from './invariants.js';

const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [a-z][a-z_]*\.(?:DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL): /;
const MAX_LINE_BYTES = 8 * 1024;
const PROVOKED_CRITICAL = /^Transfer-Encoding ".*" is not supported\.$/;
const ACCESS_KEYS = 'time,request_id,client_ip,method,routed_method,target,protocol,status,bytes,duration_ms,user_agent,referer,subject,worker,completed';
const NOTICE_KEYS = 'time,notice';

/** Whether `line` is an access line (or a notice of its sink): one JSON object, its keys in order. */
function isAccessLine(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value).join(',');
    return keys === ACCESS_KEYS || keys === NOTICE_KEYS;
  } catch {
    return false;
  }
}

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
    const access = new RegExp(`^${appEnv}-access-\\d{4}-\\d{2}-\\d{2}\\.log$`).test(name);
    if (!access && !new RegExp(`^${appEnv}-\\d{4}-\\d{2}-\\d{2}\\.log$`).test(name)) report('log-line', `name ${name}`, `unexpected file name ${name}`);
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
      if (access ? !isAccessLine(line) : !LINE.test(line)) report('log-line', `shape ${access}`, `not an ${access ? 'access' : 'entry'} line: ${JSON.stringify(line.slice(0, 200))}`);
      if (/[\x00-\x1f\x7f\u0080-\u009f\u2028\u2029]/.test(line)) report('log-line', 'control', `raw control character in ${JSON.stringify(line.slice(0, 200))}`);
      if (size > MAX_LINE_BYTES) report('log-line', `size`, `a line of ${size} bytes: ${JSON.stringify(line.slice(0, 160))}`);
      const critical = /^\S+ \S+ [a-z_]+\.CRITICAL: (.{0,160})/.exec(line);
      // A 501 for a transfer coding the client chose is provoked; every other CRITICAL is not.
      if (critical && !PROVOKED_CRITICAL.test(critical[1]!)) report('no-5xx', `critical ${critical[1]!.slice(0, 60)}`, `CRITICAL entry: ${JSON.stringify(line.slice(0, 400))}`);
    }
  }
  return { files: names.length, lines, checks, problems };
}

/**
 * What a process costs, read from outside it as an operator would (Linux /proc): resident
 * memory and open descriptors; and how long another client waits for `GET /` meanwhile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';

export interface ProcessUsage {
  /** Resident set size (VmRSS), in bytes. */
  readonly rssBytes: number;
  /** Open file descriptors (sockets, files, pipes). */
  readonly fds: number;
}

/** The current usage of process `pid`. */
export function usageOf(pid: number): ProcessUsage {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const line = status.split('\n').find((l) => l.startsWith('VmRSS:'));
  if (line === undefined) throw new Error(`no VmRSS for process ${pid}`);
  const kib = Number(line.slice('VmRSS:'.length).trim().split(' ')[0]);
  return { rssBytes: kib * 1024, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/** Samples `pid` every `everyMs` until stopped, keeping the highest of each figure. */
export function samplePeak(pid: number, everyMs = 20): { stop(): ProcessUsage } {
  let peak = usageOf(pid);
  const take = () => {
    const now = usageOf(pid);
    peak = { rssBytes: Math.max(peak.rssBytes, now.rssBytes), fds: Math.max(peak.fds, now.fds) };
  };
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

/** The milliseconds a `GET /` on a new connection takes to be answered whole (capped). */
export function timeGetRoot(port: number, capMs = 10_000): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    });
    req.setTimeout(capMs, () => {
      req.destroy();
      resolve(capMs);
    });
    req.on('error', () => resolve(capMs));
  });
}

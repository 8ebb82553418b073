import { readFileSync } from 'node:fs';

/** The pids of a process's children (a cluster primary's workers), read from /proc. */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

// Shared pieces of the benchmarks: child servers, RSS sampling, interleaved rounds, medians.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';

/**
 * The six secret settings for our service, as long as real ones: each is masked in everything
 * the service shows or logs, and a one-letter value (too short to mask) would leave that work out.
 */
export const SECRETS = {
  APP_ID: 'bench-app-7f3c9a2e41d0',
  APP_KEY: 'bench-key-9d8e7f6a5b4c3d2e1f0a',
  ACCESS_TOKEN: 'bench-token-1a2b3c4d5e6f7a8b9c0d1e2f',
  APP_SECRET: 'bench-secret-4f5e6d7c8b9a0f1e2d3c4b5a',
  JWT_PASSPHRASE: 'bench-passphrase-0123456789abcdef',
  BROKER_PASSWORD: 'bench-broker-abcdef0123456789',
};

/**
 * Starts `node [nodeArgs] <script> ...args`; resolves with its URL once it prints `listening on <url>`.
 * With `cpu`, the process is pinned to that core (taskset), apart from the load generator.
 */
export function startChild(script, args = [], env = {}, nodeArgs = [], { cpu } = {}) {
  const command = [process.execPath, ...nodeArgs, script, ...args];
  if (cpu !== undefined) command.unshift('taskset', '-c', String(cpu));
  const child = spawn(command[0], command.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const url = /listening on (https?:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url, pids: () => [child.pid], stop: () => stopChild(child) });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited ${code} before listening`)));
  });
}

export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** Peak resident set size (VmHWM) of a process, in MiB. */
export function peakRssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** Current resident set size (VmRSS) of a process, in MiB. */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU time (user + system, all threads) a process has used so far, in seconds. */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // Fields 14 and 15 of stat (utime, stime), counted from the state field as index 0 here.
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * One autocannon run of `duration` seconds, or of `amount` requests when given; resolves with
 * requests/s (mean), bytes/s, and response counts.
 */
export async function load(url, { connections = 32, duration = 5, amount, path = '/', headers = {} } = {}) {
  const result = await autocannon({ url: url + path, connections, duration, headers, ...(amount ? { amount } : {}) });
  return {
    rps: result.requests.average,
    bytesPerSec: result.throughput.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `date`, CPU model, core count and Node version, for the results file. */
export function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${new Date().toISOString().slice(0, 10)}, ${cpu}, ${os.cpus().length} cores, Node ${process.version}`;
}

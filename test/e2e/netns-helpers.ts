/**
 * "Machines" for end-to-end tests: Linux network namespaces, each with one address on a bridge
 * in the root namespace, so programs in different namespaces (and the root namespace, where the
 * test and nginx run) reach each other across veth pairs as separate hosts on one LAN would. A
 * bridge needs no routing, so nothing global (ip_forward) is changed. Names carry the test's pid,
 * so two runs never collide, and `remove` deletes whatever `create` made, even half of it.
 * Needs root and iproute2 (`ip`); fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { startRedis, stopRedis } from '../helpers/redis-server.js';
import { runProgram } from '../helpers/programs.js';

/** One "machine": a network namespace and its address on the lab's bridge. */
export interface LabHost {
  /** Network namespace name (`ip netns`). */
  readonly namespace: string;
  /** The root namespace's end of its veth pair, a port of the bridge. */
  readonly veth: string;
  readonly address: string;
}

/** The namespaces of one test run, on one /24 in 10.231.0.0/16. */
export interface LabPlan {
  readonly bridge: string;
  /** The root namespace's address on the bridge: where nginx and the test connect from. */
  readonly gateway: string;
  readonly prefixLength: 24;
  readonly hosts: readonly LabHost[];
}

/**
 * Names and addresses for `count` hosts of run `pid`, on subnet 10.231.`octet`.0/24: the bridge
 * takes .1, hosts .2 upwards. Interface names stay within Linux's 15 characters.
 */
export function planLab(tag: string, pid: number, octet: number, count: number): LabPlan {
  if (!/^[a-z]{1,3}$/.test(tag)) throw new TypeError(`a lab tag is 1 to 3 lowercase letters, not ${JSON.stringify(tag)}`);
  if (!Number.isInteger(octet) || octet < 0 || octet > 255) throw new TypeError(`octet ${octet}`);
  if (count < 1 || count > 200) throw new TypeError(`count ${count}`);
  const hosts = Array.from({ length: count }, (_, i) => ({
    namespace: `${tag}-${pid}-${i}`,
    veth: `${tag}${pid}v${i}`,
    address: `10.231.${octet}.${i + 2}`,
  }));
  return { bridge: `${tag}${pid}br`, gateway: `10.231.${octet}.1`, prefixLength: 24, hosts };
}

/** The words that run a program inside `host`'s namespace: `[...inNamespace(h), 'node', ...]`. */
export function inNamespace(host: LabHost): string[] {
  return ['ip', 'netns', 'exec', host.namespace];
}

async function ip(args: readonly string[]): Promise<void> {
  const result = await runProgram('ip', args);
  assert.equal(result.code, 0, `ip ${args.join(' ')}: ${result.stderr}`);
}

/** A /24 of 10.231.0.0/16 that no interface of the root namespace is on yet, tried from `pid`'s. */
async function freeOctet(pid: number): Promise<number> {
  const shown = await runProgram('ip', ['-o', '-4', 'addr', 'show']);
  assert.equal(shown.code, 0, shown.stderr);
  const taken = shown.stdout.toString('utf8');
  for (let i = 0; i < 256; i++) {
    const octet = (pid + i) % 256;
    if (!taken.includes(` 10.231.${octet}.`)) return octet;
  }
  throw new Error('every 10.231.x.0/24 is taken in the root namespace');
}

/**
 * A lab of `count` hosts for this process: planned at once (so `remove` can be registered in an
 * `after` hook before anything exists), made by `create`.
 */
export function createLab(tag: string, count: number): { plan(): LabPlan; create(): Promise<LabPlan>; remove(): Promise<void> } {
  let plan: LabPlan | undefined;
  return {
    plan() {
      if (plan === undefined) throw new Error('the lab is not created yet');
      return plan;
    },
    async create() {
      plan = planLab(tag, process.pid, await freeOctet(process.pid), count);
      await ip(['link', 'add', plan.bridge, 'type', 'bridge']);
      await ip(['addr', 'add', `${plan.gateway}/${plan.prefixLength}`, 'dev', plan.bridge]);
      await ip(['link', 'set', plan.bridge, 'up']);
      for (const host of plan.hosts) {
        await ip(['netns', 'add', host.namespace]);
        // The namespace's end is its eth0: a machine's ordinary interface.
        await ip(['link', 'add', host.veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.namespace]);
        await ip(['link', 'set', host.veth, 'master', plan.bridge, 'up']);
        await ip(['-n', host.namespace, 'addr', 'add', `${host.address}/${plan.prefixLength}`, 'dev', 'eth0']);
        await ip(['-n', host.namespace, 'link', 'set', 'eth0', 'up']);
        await ip(['-n', host.namespace, 'link', 'set', 'lo', 'up']);
      }
      return plan;
    },
    async remove() {
      if (plan === undefined) return;
      // Each deletion on its own, so one that fails (never made) leaves the others to run.
      const failures: string[] = [];
      const attempt = async (args: string[]) => {
        const result = await runProgram('ip', args);
        if (result.code !== 0 && !/Cannot find device|No such file|does not exist/.test(result.stderr)) failures.push(`ip ${args.join(' ')}: ${result.stderr.trim()}`);
      };
      // A veth's two ends go together; deleting it here does not wait for its namespace to go.
      for (const host of plan.hosts) await attempt(['link', 'del', host.veth]);
      for (const host of plan.hosts) await attempt(['netns', 'del', host.namespace]);
      await attempt(['link', 'del', plan.bridge]);
      assert.deepEqual(failures, [], 'the lab was not removed whole');
    },
  };
}

/** A redis-server running in a lab host. */
export interface LabRedis {
  readonly child: ChildProcess;
  /** `redis://:<password>@<address>:<port>/<db>`. */
  url(db: number): string;
  output(): string;
  /** Sends `signal` and waits for the exit (nothing to do if it already exited). */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts redis-server in `host` on `host.address`:`port`, with a password, no persistence (a
 * restart starts empty) and `dir` as its working directory, and waits until it accepts
 * connections.
 */
export async function startRedisIn(host: LabHost, port: number, password: string, dir: string): Promise<LabRedis> {
  const redis = await startRedis(port, dir, [], { launcher: inNamespace(host), bind: host.address, password });
  return {
    child: redis.child,
    url: (db) => `redis://:${encodeURIComponent(password)}@${host.address}:${port}/${db}`,
    output: redis.output,
    stop: (signal) => stopRedis(redis, signal),
  };
}

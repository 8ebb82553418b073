/**
 * Processes that spin on the CPU, so a test runs the way a loaded machine would: the service,
 * its clients and the spinners take turns on the cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface Spinners {
  /** Kills every spinner and waits until each has exited. */
  stop(): Promise<void>;
}

/** Starts `count` processes that do nothing but spin; stop them in an `after` hook. */
export function startSpinners(count: number): Spinners {
  const children: ChildProcess[] = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
  return {
    async stop() {
      await Promise.all(children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }));
    },
  };
}

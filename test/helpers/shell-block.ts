/**
 * Running a shell block of README or docs/ as a reader pasting it would: the block as it stands,
 * by bash, in a checkout, with a bare environment. The block runs in a process group of its own,
 * killed after the test file whatever became of it, so a service it started in the background
 * never outlives the test.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export interface ShellRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `block` with `bash -e` in `cwd`: a failing command stops the block, as a reader would stop.
 * The environment is PATH and HOME and `env` alone. Resolves when bash exits; after `limitMs` the
 * group is killed and the run resolves with its signal.
 */
export async function runShellBlock(block: string, cwd: string, env: Record<string, string> = {}, limitMs = 180_000): Promise<ShellRun> {
  // In a file of its own, not on stdin: a command of the block that reads stdin would eat the rest.
  const dir = mkdtempSync(join(tmpdir(), 'shell-block-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'block.sh');
  writeFileSync(script, block);
  const child = spawn('bash', ['-e', script], {
    cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  after(killGroup);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const timer = setTimeout(killGroup, limitMs);
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { code, signal, stdout, stderr };
}

/** The width and height a baseline JPEG's SOF0 segment gives (T.81 B.2.2), or undefined without one. */
export function sof0Size(jpeg: Uint8Array): { width: number; height: number } | undefined {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return undefined;
  for (let at = 2; at + 9 <= jpeg.length && jpeg[at] === 0xff; ) {
    const marker = jpeg[at + 1]!;
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    if (marker === 0xc0) return { height: (jpeg[at + 5]! << 8) | jpeg[at + 6]!, width: (jpeg[at + 7]! << 8) | jpeg[at + 8]! };
    if (marker === 0xda) return undefined; // the scan begins: no SOF0 before it
    at += 2 + length;
  }
  return undefined;
}

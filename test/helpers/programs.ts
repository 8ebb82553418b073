/**
 * Running the outside programs of the e2e tier. A missing program fails the test with a
 * message naming the install script; it never skips.
 */
import { spawn } from 'node:child_process';

export interface ProgramResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Runs `program` with `args`, feeding `input` on stdin; rejects when it cannot be started. */
export function runProgram(program: string, args: readonly string[], input?: Uint8Array | string): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ENOENT' ? new Error(`${program} is not installed: run scripts/install-test-tools`) : err);
    });
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
    child.stdin.on('error', () => {}); // a program may exit before reading all its input
    child.stdin.end(input);
  });
}

/**
 * Starts the service in-process on port 0 with a memory logger, or as a program, for black-box
 * tests: from src/ or from the build, as SERVICE_TARGET says (./target.ts).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after } from 'node:test';
import { parseConfig, type Config } from '../../src/config/config.js';
import type { Logger, LogLevel } from '../../src/log/index.js';
import type { RunningServer, StartOptions } from '../../src/server.js';
import { serviceTarget } from './target.js';

export interface MemoryLogger extends Logger {
  readonly lines: { channel: string; level: LogLevel; message: string }[];
  clear(): void;
}

export function createMemoryLogger(): MemoryLogger {
  const lines: MemoryLogger['lines'] = [];
  return {
    lines,
    log(channel, level, message) {
      lines.push({ channel, level, message });
    },
    flush: async () => {},
    clear() {
      lines.length = 0;
    },
  };
}

/**
 * Settings for a test: port 0, loopback, `varDir`, then `vars`. Each caller has a VAR_DIR of its
 * own, never one shared: the fast tier runs many files in one process, and a store or a
 * rate-limit file left by one test must not answer another's.
 */
function testSettings(vars: Record<string, string>, varDir: string): Record<string, string> {
  return { APP_ENV: 'test', HOST: '127.0.0.1', PORT: '0', VAR_DIR: varDir, ...vars };
}

const newVarDir = () => mkdtempSync(join(tmpdir(), 'service-var-'));

/** A config from settings (port 0, loopback, a temp VAR_DIR removed after the current test or file), as start-up would validate them. */
export function testConfig(vars: Record<string, string> = {}): Config {
  const varDir = newVarDir();
  after(() => rmSync(varDir, { recursive: true, force: true }));
  return parseConfig(testSettings(vars, varDir), process.cwd());
}

export interface TestService extends RunningServer {
  readonly log: MemoryLogger;
}

/** Starts a service (of SERVICE_TARGET) for the current test or file, with a VAR_DIR of its own, and stops it after. */
export async function startTestService(
  vars: Record<string, string> = {},
  options: Omit<StartOptions, 'config' | 'logger'> = {},
): Promise<TestService> {
  const target = await serviceTarget().loadModules();
  const log = createMemoryLogger();
  const varDir = newVarDir();
  const running = await target.startServer({ ...options, config: target.parseConfig(testSettings(vars, varDir), process.cwd()), logger: log });
  after(async () => {
    await running.stop();
    rmSync(varDir, { recursive: true, force: true });
  });
  return { ...running, log };
}

export interface ServerProgram {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  /** The URL of the `listening on …` line; rejects if the program exits first. */
  readonly listening: Promise<string>;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** A temp VAR_DIR (removed after the test file); logs go to `<varDir>/log`. */
  readonly varDir: string;
  output(): { stdout: string; stderr: string };
}

/** Programs started by runServerProgram that have not exited yet. */
const started = new Set<ChildProcessByStdio<null, Readable, Readable>>();

// A test that fails before stopping its program would leave it running, and the file's process
// waiting on it for ever (a whole tier hung so once): when the file's tests are done, whatever
// still runs is stopped as the tests stop it, and killed if it will not go.
after(async () => {
  await Promise.all([...started].map(async (child) => {
    child.kill('SIGTERM');
    const killLater = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await once(child, 'exit');
    clearTimeout(killLater);
  }));
});

/**
 * Runs the server program of SERVICE_TARGET with a clean environment: src/server.ts through tsx
 * (as `npm run dev` does) or dist/server.js (as `npm start` does); or the entry `entry` names.
 * `launcher` is put before node, a program that runs it: `['ip', 'netns', 'exec', <name>]`.
 */
export function runServerProgram(env: Record<string, string>, nodeArgs: readonly string[] = [], entry?: string, launcher: readonly string[] = []): ServerProgram {
  const varDir = mkdtempSync(join(tmpdir(), 'server-var-'));
  const program = entry ?? serviceTarget().serverEntry;
  const args = program.endsWith('.ts') ? ['--import', 'tsx', ...nodeArgs, program] : [...nodeArgs, program];
  const [command, ...commandArgs] = [...launcher, process.execPath, ...args];
  const child = spawn(command!, commandArgs, {
    env: { PATH: process.env.PATH, APP_ENV: 'test', PORT: '0', VAR_DIR: varDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const url = /^listening on (https?:\/\/\S+)\n/.exec(stdout)?.[1];
      if (url) resolve(url);
    });
    void exited.then(([code]) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
  });
  listening.catch(() => {}); // tests of failed starts never wait for it
  started.add(child);
  void exited.then(() => started.delete(child));
  after(() => {
    // A program still running (a later hook stops it) may write to its VAR_DIR: remove it once
    // the program has exited, never under it.
    const remove = () => rmSync(varDir, { recursive: true, force: true });
    if (child.exitCode === null && child.signalCode === null) child.once('exit', remove);
    else remove();
  });
  return { child, listening, exited, varDir, output: () => ({ stdout, stderr }) };
}

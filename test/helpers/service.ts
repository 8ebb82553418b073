/**
 * Starts the service in-process on port 0 with a memory logger, for black-box tests.
 */
import { after } from 'node:test';
import { parseConfig, type Config } from '../../src/config.js';
import type { Logger, LogLevel } from '../../src/log.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';

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

/** A config from settings (port 0, loopback), as start-up would validate them. */
export function testConfig(vars: Record<string, string> = {}): Config {
  return parseConfig({ APP_ENV: 'test', HOST: '127.0.0.1', PORT: '0', VAR_DIR: 'var/test', ...vars }, process.cwd());
}

export interface TestService extends RunningServer {
  readonly log: MemoryLogger;
}

/** Starts a service for the current test file and stops it after the file's tests. */
export async function startTestService(
  vars: Record<string, string> = {},
  options: Omit<StartOptions, 'config' | 'logger'> = {},
): Promise<TestService> {
  const log = createMemoryLogger();
  const running = await startServer({ ...options, config: testConfig(vars), logger: log });
  after(() => running.stop());
  return { ...running, log };
}

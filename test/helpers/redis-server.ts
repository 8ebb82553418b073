/**
 * A real `redis-server` (Debian's package) for the e2e tier: on a loopback port, with a password,
 * no persistence and no unix socket. Fails, never skips, when redis-server is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** The password every test server requires. */
export const REDIS_PASSWORD = 'e2e p@ss:word';

export interface RunningRedis {
  readonly child: ChildProcess;
  output(): string;
}

/** Where and how a test redis-server runs: by default on loopback, started directly. */
export interface RedisServerOptions {
  /** Words that run the program elsewhere, such as `ip netns exec <ns>`. */
  readonly launcher?: readonly string[];
  readonly bind?: string;
  readonly password?: string;
}

/** Starts redis-server on `port` (plain TCP unless `extra` says otherwise) and waits until it accepts connections. */
export async function startRedis(port: number, dir: string, extra: readonly string[] = [], options: RedisServerOptions = {}): Promise<RunningRedis> {
  const [program, ...launcherArgs] = [...(options.launcher ?? []), 'redis-server'];
  const child = spawn(program!, [
    ...launcherArgs,
    '--port', String(port), '--bind', options.bind ?? '127.0.0.1', '--requirepass', options.password ?? REDIS_PASSWORD,
    '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--logfile', '', ...extra,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c));
  child.stderr!.on('data', (c: Buffer) => (output += c));
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (!output.includes('Ready to accept connections')) return;
      clearInterval(poll);
      resolve();
    }, 20);
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearInterval(poll);
      reject(err.code === 'ENOENT' ? new Error(`${program} is not installed: run scripts/install-test-tools`) : err);
    });
    child.once('exit', (code) => {
      clearInterval(poll);
      // `ip netns exec` says so when the program is missing, and exits 255.
      const missing = output.includes('exec of "redis-server" failed');
      reject(new Error(missing ? 'redis-server is not installed: run scripts/install-test-tools' : `redis-server exited ${code}: ${output}`));
    });
  });
  return { child, output: () => output };
}

/** Stops a redis-server with `signal` and waits for it to exit. */
export async function stopRedis(redis: RunningRedis, signal: NodeJS.Signals): Promise<void> {
  if (redis.child.exitCode !== null || redis.child.signalCode !== null) return;
  const exited = once(redis.child, 'exit');
  redis.child.kill(signal);
  await exited;
}

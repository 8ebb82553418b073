/**
 * `WORKERS=<n>` (n > 1, or `auto` on a machine of several cores): a `node:cluster` primary that runs n worker processes sharing the
 * port, replaces a worker that dies, and on SIGTERM/SIGINT stops them all gracefully.
 * Every worker appends to the same daily log file (whole lines, O_APPEND). With the dev profiler
 * on, the primary keeps every worker's profiles, so that any worker can show any of them.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config/index.js';
import type { FileLogger } from './log/index.js';
import { loadClusterAdmin } from './ops/index.js';
import { ProfileHub, type PrimaryMessage } from './profiler/index.js';

/** A worker that dies sooner than this after starting is restarted only after this delay. */
const RESTART_BACKOFF_MS = 1_000;
/** How long the primary waits for workers to finish a graceful stop. */
const STOP_TIMEOUT_MS = 12_000;

export interface ListeningMessage {
  readonly type: 'listening';
  readonly url: string;
}

export function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as ListeningMessage).type === 'listening';
}

/** A worker that has gone asks nothing more; its answer is dropped rather than thrown. */
function answerWorker(worker: Worker, answer: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(answer, () => {});
}

/**
 * The start-up warning when more workers are asked for than there are cores to run them: they
 * would take turns on the cores, each request waiting its turn, for more memory and no gain.
 */
export function workersWarning(workers: number, cores: number): string | undefined {
  if (workers <= cores) return undefined;
  return `warning: WORKERS=${workers} is more than the ${cores} core${cores === 1 ? '' : 's'} this process may run on; WORKERS=auto runs one per core`;
}

/**
 * Runs the primary: forks, prints the one `listening on` line (and `admin listening on` when it
 * serves the operator's listener for every worker), restarts, stops.
 */
export async function runPrimary(config: Config, logger: FileLogger, print: (line: string) => void): Promise<void> {
  const { createClusterAdmin, isAdminReport } = await loadClusterAdmin();
  let stopping = false;
  let announced = false;
  const startedAt = new Map<Worker, number>();
  // As in the app: the profiler exists in dev with APP_DEBUG=1 only.
  const profiles = config.appEnv === 'dev' && config.debug ? new ProfileHub(config.profilerMax) : undefined;
  const admin = config.admin === undefined ? undefined : createClusterAdmin(config, logger, () => stopping);

  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.on('message', (message: unknown) => {
      if (isListeningMessage(message) && !announced) {
        announced = true;
        print(`listening on ${message.url}`);
        admin?.listening.then((url) => print(`admin listening on ${url}`), (err: unknown) => {
          logger.log('app', 'CRITICAL', `Cannot start the admin listener: ${err instanceof Error ? err.message : String(err)}`);
          process.stderr.write(`cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
          stop(1);
        });
      } else if (isAdminReport(message)) {
        admin?.reports.receive(worker.id, message);
      } else {
        profiles?.receive(message, (answer) => answerWorker(worker, answer));
      }
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    admin?.reports.retire(worker.id);
    if (stopping) return;
    if (!announced) {
      // No worker has listened yet: the start failed (the worker said why on stderr, `cannot
      // start: …`), and another worker would fail the same way, once a second, for ever.
      logger.log('app', 'CRITICAL', `Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) before the service listened; stopping`);
      stop(1);
      return;
    }
    logger.log('app', 'ERROR', `Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
    setTimeout(fork, lived < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : 0);
  });

  const stop = (exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    const all = workers.map((w) => new Promise<void>((resolve) => {
      if (w.isDead()) return resolve();
      w.once('exit', () => resolve());
      w.process.kill('SIGTERM');
    }));
    const deadline = setTimeout(() => {
      for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    }, STOP_TIMEOUT_MS + config.drainSeconds * 1000);
    void Promise.all(all).then(async () => {
      clearTimeout(deadline);
      await admin?.close();
      await logger.flush();
      process.exit(exitCode);
    });
  };
  process.once('SIGTERM', () => stop());
  process.once('SIGINT', () => stop());

  for (let i = 0; i < config.workers; i++) fork();
}

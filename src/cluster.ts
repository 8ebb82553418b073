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
  new ClusterPrimary({ config, logger, print, createClusterAdmin, isAdminReport }).start();
}

type ClusterAdminModule = Awaited<ReturnType<typeof loadClusterAdmin>>;

interface ClusterPrimaryOptions extends ClusterAdminModule {
  readonly config: Config;
  readonly logger: FileLogger;
  readonly print: (line: string) => void;
}

/** The primary's workers, from the first fork to the last exit. */
class ClusterPrimary {
  readonly #config: Config;
  readonly #logger: FileLogger;
  readonly #print: (line: string) => void;
  readonly #isAdminReport: ClusterAdminModule['isAdminReport'];
  readonly #admin: ReturnType<ClusterAdminModule['createClusterAdmin']> | undefined;
  /** The dev profiler's profiles of every worker: as in the app, in dev with APP_DEBUG=1 only. */
  readonly #profiles: ProfileHub | undefined;
  readonly #startedAt = new Map<Worker, number>();
  #stopping = false;
  #announced = false;
  /** Workers that said they listen: those SIGHUP is passed to. */
  readonly #listening = new Set<Worker>();
  /** Workers still starting when a SIGHUP came: passed on once they listen. */
  readonly #hangupOwed = new Set<Worker>();

  constructor({ config, logger, print, createClusterAdmin, isAdminReport }: ClusterPrimaryOptions) {
    this.#config = config;
    this.#logger = logger;
    this.#print = print;
    this.#isAdminReport = isAdminReport;
    this.#profiles = config.appEnv === 'dev' && config.debug ? new ProfileHub(config.profilerMax) : undefined;
    this.#admin = config.admin === undefined ? undefined : createClusterAdmin(config, logger, () => this.#stopping);
  }

  /** Forks the workers, and replaces or stops them from now on. */
  start(): void {
    cluster.on('exit', (worker, code, signal) => this.#exited(worker, code, signal));
    process.once('SIGTERM', () => this.#stop());
    process.once('SIGINT', () => this.#stop());
    // Each worker serves its own TLS listener: each reloads the certificate. Only a worker that
    // listens surely has its handler in place (SIGHUP would end one still loading): one still
    // starting gets it once it listens, as it may have read the files before they changed.
    process.on('SIGHUP', () => {
      for (const worker of Object.values(cluster.workers ?? {})) {
        if (worker === undefined || worker.isDead()) continue;
        if (this.#listening.has(worker)) worker.process.kill('SIGHUP');
        else this.#hangupOwed.add(worker);
      }
    });
    for (let i = 0; i < this.#config.workers; i++) this.#fork();
  }

  #fork(): void {
    const worker = cluster.fork();
    this.#startedAt.set(worker, Date.now());
    worker.on('message', (message: unknown) => this.#received(worker, message));
  }

  /** A worker's message: its listening (the first one is announced), an admin report, or a profiler request. */
  #received(worker: Worker, message: unknown): void {
    if (isListeningMessage(message)) {
      this.#listening.add(worker);
      if (this.#hangupOwed.delete(worker)) worker.process.kill('SIGHUP');
      if (!this.#announced) this.#announce(message.url);
      this.#announced = true;
    } else if (this.#isAdminReport(message)) {
      this.#admin?.reports.receive(worker.id, message);
    } else {
      this.#profiles?.receive(message, (answer) => answerWorker(worker, answer));
    }
  }

  /** Prints the `listening on` line, and the admin listener's once it listens (or stops if it cannot). */
  #announce(url: string): void {
    this.#print(`listening on ${url}`);
    this.#admin?.listening.then((adminUrl) => this.#print(`admin listening on ${adminUrl}`), (err: unknown) => {
      this.#logger.log('app', 'CRITICAL', `Cannot start the admin listener: ${err instanceof Error ? err.message : String(err)}`);
      process.stderr.write(`cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
      this.#stop(1);
    });
  }

  /** A worker exited: another starts, unless the service is stopping or never started. */
  #exited(worker: Worker, code: number, signal: string): void {
    const lived = Date.now() - (this.#startedAt.get(worker) ?? 0);
    this.#startedAt.delete(worker);
    this.#listening.delete(worker);
    this.#hangupOwed.delete(worker);
    this.#admin?.reports.retire(worker.id);
    if (this.#stopping) return;
    if (!this.#announced) {
      // No worker has listened yet: the start failed (the worker said why on stderr, `cannot
      // start: …`), and another worker would fail the same way, once a second, for ever.
      this.#logger.log('app', 'CRITICAL', `Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) before the service listened; stopping`);
      this.#stop(1);
      return;
    }
    this.#logger.log('app', 'ERROR', `Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
    setTimeout(() => this.#fork(), lived < RESTART_BACKOFF_MS ? RESTART_BACKOFF_MS : 0);
  }

  /** Stops every worker gracefully, then the admin listener, then the process (once). */
  #stop(exitCode = 0): void {
    if (this.#stopping) return;
    this.#stopping = true;
    void stopWorkers(STOP_TIMEOUT_MS + this.#config.drainSeconds * 1000).then(async () => {
      await this.#admin?.close();
      await this.#logger.flush();
      process.exit(exitCode);
    });
  }
}

/** Asks every worker to stop (SIGTERM) and kills those still running after `killAfterMs`; resolves once all have exited. */
async function stopWorkers(killAfterMs: number): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
  const all = workers.map((w) => new Promise<void>((resolve) => {
    if (w.isDead()) return resolve();
    w.once('exit', () => resolve());
    w.process.kill('SIGTERM');
  }));
  const deadline = setTimeout(() => {
    for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
  }, killAfterMs);
  await Promise.all(all);
  clearTimeout(deadline);
}

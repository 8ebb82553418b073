/**
 * Poster rendering off the event loop: a pool of worker threads (one per core by default) with
 * a bounded queue, so a burst of renders never blocks other requests and never piles up.
 */
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PosterSpec } from '../render/index.js';
import { Problem } from '../core/index.js';

export interface RenderJob {
  readonly id: number;
  readonly spec: PosterSpec;
}

/** A worker's answer: the poster's JPEG bytes, or why it could not be rendered. */
export type RenderReply = { readonly id: number } & ({ readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly message: string });

/** Every worker is busy and the queue is full. */
export class RenderQueueFull extends Problem {
  constructor(retryAfterSeconds: number) {
    super('busy', 'Too many posters are being rendered; try again shortly.', {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

export interface RenderPool {
  /** The poster's JPEG bytes, rendered off the event loop; nothing is written. */
  render(spec: PosterSpec): Promise<Uint8Array>;
  /** Jobs waiting for a worker (`poster_queue_depth`). */
  readonly queueDepth: number;
  /** Worker threads this pool has started over its life, replacements included. */
  readonly workersStarted: number;
  /**
   * Whether a render could start: resolves once a worker is online (starting one if none is),
   * undefined, or says why not. Readiness asks it; the first poster then finds a worker waiting.
   */
  checkLive(): Promise<string | undefined>;
  /** Tells `listener` of every render as it ends, with its time in seconds, waiting included (the metrics). */
  watchRenders(listener: RenderListener): void;
  close(): Promise<void>;
}

export type RenderListener = (result: RenderResult, seconds: number) => void;

/** How a render ended: `refused` when every worker was busy and the queue full. */
export type RenderResult = 'ok' | 'failed' | 'refused';

export interface RenderPoolOptions {
  readonly size?: number;
  /** Jobs waiting for a worker beyond the ones running (default 4 per worker). */
  readonly maxQueued?: number;
}

interface Pending {
  readonly job: RenderJob;
  resolve(bytes: Uint8Array): void;
  reject(err: Error): void;
}

/** The worker's module next to this one: `.ts` under tsx, `.js` once built. */
const FROM_SOURCE = extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER_URL: Readonly<URL> = new URL(`./worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

function startWorker(): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL);
  // Run from source (tests, `npm run dev`): loader hooks are per thread, so the worker
  // registers the TypeScript loader itself before importing its module.
  const api = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(bootstrap, { eval: true });
}

/**
 * A pool of at most `size` workers, each started on demand: a service whose posters nobody asks
 * for starts no thread, and a burst starts only as many as it keeps busy.
 */
export function createRenderPool(options: RenderPoolOptions = {}): RenderPool {
  const size = options.size ?? availableParallelism();
  const maxQueued = options.maxQueued ?? size * 4;
  const idle: Worker[] = [];
  const running = new Map<Worker, Pending>();
  const queue: Pending[] = [];
  const workers: Worker[] = [];
  /** Workers whose thread is running (Node's 'online'), for `checkLive`. */
  const online = new Set<Worker>();
  const renderListeners: RenderListener[] = [];
  const onRendered: RenderListener = (result, seconds) => {
    for (const listener of renderListeners) listener(result, seconds);
  };
  let nextId = 1;
  let started = 0;

  const spawnWorker = (): Worker => {
    const worker = startWorker();
    started++;
    worker.once('online', () => online.add(worker));
    worker.once('exit', () => online.delete(worker));
    worker.on('message', (reply: RenderReply) => {
      const pending = running.get(worker);
      running.delete(worker);
      if (pending) {
        if (reply.ok) pending.resolve(reply.bytes);
        else pending.reject(new Error(reply.message));
      }
      next(worker);
    });
    worker.on('error', (err) => {
      // A crashed worker fails its job; a replacement starts only if jobs are waiting.
      const pending = running.get(worker);
      running.delete(worker);
      pending?.reject(err);
      workers.splice(workers.indexOf(worker), 1);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      if (queue.length > 0) next(spawnWorker());
    });
    workers.push(worker);
    worker.unref();
    return worker;
  };

  const warmWorker = (): Worker => {
    const worker = spawnWorker();
    idle.push(worker);
    return worker;
  };

  const run = (worker: Worker, pending: Pending) => {
    running.set(worker, pending);
    worker.postMessage(pending.job);
  };

  const next = (worker: Worker) => {
    const pending = queue.shift();
    if (pending) run(worker, pending);
    else idle.push(worker);
  };

  return {
    render(spec) {
      const startedAt = performance.now();
      const worker = idle.pop() ?? (workers.length < size ? spawnWorker() : undefined);
      if (!worker && queue.length >= maxQueued) {
        onRendered('refused', 0);
        return Promise.reject(new RenderQueueFull(1));
      }
      const rendered = new Promise<Uint8Array>((resolve, reject) => {
        const pending: Pending = { job: { id: nextId++, spec }, resolve, reject };
        if (worker) run(worker, pending);
        else queue.push(pending);
      });
      rendered.then(
        () => onRendered('ok', (performance.now() - startedAt) / 1000),
        () => onRendered('failed', (performance.now() - startedAt) / 1000),
      );
      return rendered;
    },
    get queueDepth() {
      return queue.length;
    },
    get workersStarted() {
      return started;
    },
    async checkLive() {
      if (online.size > 0) return undefined;
      // None running yet: wait for the one starting, or start one that waits idle for the first poster.
      const worker = workers[0] ?? warmWorker();
      return new Promise<string | undefined>((resolve) => {
        worker.once('online', () => resolve(undefined));
        worker.once('error', (err) => resolve(`a render worker failed to start: ${err.message}`));
      });
    },
    watchRenders(listener) {
      renderListeners.push(listener);
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

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
  return new WorkerPool(size, options.maxQueued ?? size * 4);
}

/** The workers, the jobs they run and the jobs waiting for one. */
class WorkerPool implements RenderPool {
  readonly #size: number;
  readonly #maxQueued: number;
  readonly #idle: Worker[] = [];
  readonly #running = new Map<Worker, Pending>();
  readonly #queue: Pending[] = [];
  readonly #workers: Worker[] = [];
  /** Workers whose thread is running (Node's 'online'), for `checkLive`. */
  readonly #online = new Set<Worker>();
  readonly #renderListeners: RenderListener[] = [];
  #nextId = 1;
  #started = 0;

  constructor(size: number, maxQueued: number) {
    this.#size = size;
    this.#maxQueued = maxQueued;
  }

  render(spec: PosterSpec): Promise<Uint8Array> {
    const startedAt = performance.now();
    const worker = this.#idle.pop() ?? (this.#workers.length < this.#size ? this.#spawnWorker() : undefined);
    if (!worker && this.#queue.length >= this.#maxQueued) {
      this.#rendered('refused', 0);
      return Promise.reject(new RenderQueueFull(1));
    }
    const rendered = new Promise<Uint8Array>((resolve, reject) => {
      const pending: Pending = { job: { id: this.#nextId++, spec }, resolve, reject };
      if (worker) this.#run(worker, pending);
      else this.#queue.push(pending);
    });
    rendered.then(
      () => this.#rendered('ok', (performance.now() - startedAt) / 1000),
      () => this.#rendered('failed', (performance.now() - startedAt) / 1000),
    );
    return rendered;
  }

  get queueDepth(): number {
    return this.#queue.length;
  }

  get workersStarted(): number {
    return this.#started;
  }

  async checkLive(): Promise<string | undefined> {
    if (this.#online.size > 0) return undefined;
    // None running yet: wait for the one starting, or start one that waits idle for the first poster.
    const worker = this.#workers[0] ?? this.#warmWorker();
    return new Promise<string | undefined>((resolve) => {
      worker.once('online', () => resolve(undefined));
      worker.once('error', (err) => resolve(`a render worker failed to start: ${err.message}`));
    });
  }

  watchRenders(listener: RenderListener): void {
    this.#renderListeners.push(listener);
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }

  #rendered(result: RenderResult, seconds: number): void {
    for (const listener of this.#renderListeners) listener(result, seconds);
  }

  #spawnWorker(): Worker {
    const worker = startWorker();
    this.#started++;
    worker.once('online', () => this.#online.add(worker));
    worker.once('exit', () => this.#online.delete(worker));
    worker.on('message', (reply: RenderReply) => this.#answered(worker, reply));
    worker.on('error', (err) => this.#crashed(worker, err));
    this.#workers.push(worker);
    worker.unref();
    return worker;
  }

  #warmWorker(): Worker {
    const worker = this.#spawnWorker();
    this.#idle.push(worker);
    return worker;
  }

  /** Settles the worker's job with its reply, and gives the worker the next one. */
  #answered(worker: Worker, reply: RenderReply): void {
    const pending = this.#running.get(worker);
    this.#running.delete(worker);
    if (pending) {
      if (reply.ok) pending.resolve(reply.bytes);
      else pending.reject(new Error(reply.message));
    }
    this.#next(worker);
  }

  /** A crashed worker fails its job; a replacement starts only if jobs are waiting. */
  #crashed(worker: Worker, err: Error): void {
    const pending = this.#running.get(worker);
    this.#running.delete(worker);
    pending?.reject(err);
    this.#workers.splice(this.#workers.indexOf(worker), 1);
    const at = this.#idle.indexOf(worker);
    if (at >= 0) this.#idle.splice(at, 1);
    if (this.#queue.length > 0) this.#next(this.#spawnWorker());
  }

  #run(worker: Worker, pending: Pending): void {
    this.#running.set(worker, pending);
    worker.postMessage(pending.job);
  }

  #next(worker: Worker): void {
    const pending = this.#queue.shift();
    if (pending) this.#run(worker, pending);
    else this.#idle.push(worker);
  }
}

/**
 * The service's metrics (`GET /metrics` on the operator's listener): the families, their help
 * texts, and what feeds each. Requests are counted as their answers end (`request-outcome.ts`);
 * gauges and the counts kept elsewhere (log lines, cached tokens) are read when a page is made.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { AccessRecord, LineCounts } from '../log/index.js';
import { createProcessMetrics, MetricsRegistry } from '../metrics/index.js';
import type { RenderResult } from '../poster/index.js';

/** Methods counted by name; any other a client sends is counted as `other` (no unbounded labels). */
const COUNTED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE', '-']);
/** Render times run from tens of milliseconds to seconds under load. */
const RENDER_BUCKETS: readonly number[] = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The poster API's side, when it is on. */
export interface PosterGauges {
  readonly queueDepth: () => number;
  readonly storeBytes: () => number;
  readonly storeLimit: number;
  readonly jwtCacheHits: () => number;
  /** Poster requests refused because the limits in Redis could not be reached. */
  readonly limitsRefusals: () => number;
}

export interface ServiceMetrics {
  readonly registry: MetricsRegistry;
  /** Counts an answered request (an OutcomeListener). */
  readonly answered: (outcome: AccessRecord) => void;
  /** Counts a render as it ends (the render pool's `onRendered`). */
  readonly rendered: (result: RenderResult, seconds: number) => void;
  /** Stops the event-loop monitor. */
  stop(): void;
}

/** Where the counts kept elsewhere are read. */
export interface MetricSources {
  /** Lines of each log file: `error`, and `access` when the access log is on. */
  readonly logLines: Readonly<Record<string, () => LineCounts>>;
  readonly posters?: PosterGauges;
  /** Connections open on the service's listener. */
  readonly openConnections: () => number;
}

export function createServiceMetrics(sources: MetricSources): ServiceMetrics {
  const registry = new MetricsRegistry();
  const requests = registry.counter('http_requests_total', 'Requests answered, by method as routed and status (0: the client left before any answer).', ['method', 'status']);
  const duration = registry.histogram('http_request_duration_seconds', 'Time from a request to the end of its answer.');
  registry.gauge('http_connections_open', 'Connections open on the service listener.', { collect: sources.openConnections });
  const logFiles = Object.entries(sources.logLines);
  registry.counter('log_lines_written_total', 'Log lines written, by file.', ['file'], {
    collect: () => logFiles.map(([file, counts]) => [[file], counts().written] as const),
  });
  registry.counter('log_lines_dropped_total', 'Log lines lost (queue full, day cap, unwritable disk), by file.', ['file'], {
    collect: () => logFiles.map(([file, counts]) => [[file], counts().dropped] as const),
  });
  const renders = registry.counter('poster_renders_total', 'Poster renders, by result: ok, failed, refused (every worker busy, queue full).', ['result']);
  const renderTime = registry.histogram('poster_render_duration_seconds', 'Time of a poster render, queueing included.', { buckets: RENDER_BUCKETS });
  const posters = sources.posters;
  registry.gauge('poster_queue_depth', 'Renders waiting for a worker.', { collect: () => posters?.queueDepth() ?? 0 });
  // Every instance counts the same shared directory: across workers the largest count is the truth.
  registry.gauge('poster_store_bytes', 'Bytes held by the poster store.', { aggregation: 'max', collect: () => posters?.storeBytes() ?? 0 });
  registry.gauge('poster_store_limit_bytes', 'POSTER_MAX_BYTES: bytes the poster store may hold.', { aggregation: 'max', collect: () => posters?.storeLimit ?? 0 });
  const rateLimited = registry.counter('rate_limited_total', 'Requests refused by the per-subject rate limit (429).');
  registry.counter('jwt_cache_hits_total', 'Bearer tokens found already verified in the cache.', [], { collect: () => posters?.jwtCacheHits() ?? 0 });
  registry.counter('poster_limits_unavailable_total', 'Poster requests refused (503) because the limits in Redis (REDIS_URL) could not be reached.', [], {
    collect: () => posters?.limitsRefusals() ?? 0,
  });
  const processMetrics = createProcessMetrics(registry);
  return {
    registry,
    answered(outcome) {
      const method = COUNTED_METHODS.has(outcome.routedMethod) ? outcome.routedMethod : 'other';
      requests.inc([method, String(outcome.status)]);
      duration.observe([], outcome.durationMs / 1000);
      if (outcome.status === 429) rateLimited.inc();
    },
    rendered(result, seconds) {
      renders.inc([result]);
      if (result !== 'refused') renderTime.observe([], seconds);
    },
    stop: () => processMetrics.stop(),
  };
}

/** Counts the connections open on `server` (the `http_connections_open` gauge reads it). */
export function countConnections(server: Server): () => number {
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
  });
  return () => open;
}

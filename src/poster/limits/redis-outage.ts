/**
 * Redis away, as the poster API meets it: any failure of the client becomes LimitsUnavailable
 * (503, fail closed), and the operator reads one CRITICAL line a second at most while it lasts,
 * then one NOTICE when Redis answers again.
 */
import { RedisFailure, type RedisStateChange } from '../../redis/index.js';
import { LimitsUnavailable } from './limits.js';

/** The fewest milliseconds between two CRITICAL lines of one outage. */
export const OUTAGE_REPORT_INTERVAL_MS = 1_000;

export interface OutageGuardOptions {
  /** The client's endpoint without its password, for the lines. */
  readonly endpoint: string;
  /** Subscribes to the client's changes of state; returns the function that stops it. */
  readonly onStateChange: (listener: (change: RedisStateChange) => void) => () => void;
  readonly log: (level: 'CRITICAL' | 'NOTICE', line: string) => void;
  readonly clock: () => number;
}

export interface OutageGuard {
  /** Runs `work`; a failure of Redis is reported and becomes LimitsUnavailable. */
  failClosed<T>(work: () => Promise<T>): Promise<T>;
  /** Requests refused so far because Redis failed (`poster_limits_unavailable_total`). */
  readonly refusals: number;
  stop(): void;
}

export function createOutageGuard({ endpoint, onStateChange, log, clock }: OutageGuardOptions): OutageGuard {
  let lastReportAt = -Infinity;
  let reported = false;
  let refusals = 0;
  const stop = onStateChange((change) => {
    if (change.state !== 'ready' || !reported) return;
    reported = false;
    lastReportAt = -Infinity;
    log('NOTICE', `Redis at ${endpoint} answers again: the poster limits are checked again`);
  });
  const report = (failure: RedisFailure): void => {
    const now = clock();
    if (now - lastReportAt < OUTAGE_REPORT_INTERVAL_MS) return;
    lastReportAt = now;
    reported = true;
    log('CRITICAL', `Poster limits unavailable: ${failure.name}: ${failure.message}; poster requests are answered 503 until Redis at ${endpoint} answers`);
  };
  return {
    async failClosed(work) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof RedisFailure)) throw err;
        report(err);
        refusals++;
        throw new LimitsUnavailable();
      }
    },
    get refusals() {
      return refusals;
    },
    stop,
  };
}

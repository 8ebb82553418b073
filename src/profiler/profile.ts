/**
 * What the dev profiler keeps about one request (kept.ts says how much, secrets masked), and
 * the store of the newest profiles.
 */
import { randomBytes } from 'node:crypto';
import type { LogLevel } from '../log/index.js';
import type { ProblemDocument } from '../core/index.js';

export interface LogRecord {
  readonly at: number;
  readonly channel: string;
  readonly level: LogLevel;
  readonly message: string;
}

export interface Profile {
  readonly token: string;
  /** The main request's token when this is the fallback sub-request. */
  readonly parentToken: string | undefined;
  /** Tokens of sub-requests (the fallback handler's). */
  readonly children: string[];
  readonly time: number;
  /** The request's `X-Request-Id`, as its access line has it. */
  readonly requestId: string;
  readonly method: string;
  readonly originalMethod: string;
  readonly rawPath: string;
  readonly target: string;
  readonly clientIp: string;
  readonly requestHeaders: readonly (readonly [string, string])[];
  responseHeaders: readonly (readonly [string, string])[];
  attributes: Record<string, unknown>;
  status: number | undefined;
  durationMs: number | undefined;
  readonly logs: LogRecord[];
  problem: ProblemDocument | undefined;
  stack: string | undefined;
}

/** A random token of 6 lower-case hex characters that `isTaken` does not know. */
export function newToken(isTaken: (token: string) => boolean): string {
  for (;;) {
    const token = randomBytes(3).toString('hex');
    if (!isTaken(token)) return token;
  }
}

/** Keeps the newest `max` profiles, looked up by token. */
export class ProfileStore {
  readonly #max: number;
  readonly #byToken = new Map<string, Profile>();

  constructor(max: number) {
    this.#max = max;
  }

  has(token: string): boolean {
    return this.#byToken.has(token);
  }

  get(token: string): Profile | undefined {
    return this.#byToken.get(token);
  }

  add(profile: Profile): void {
    this.#byToken.set(profile.token, profile);
    // Map order is insertion order: the first key is the oldest.
    while (this.#byToken.size > this.#max) this.#byToken.delete(this.#byToken.keys().next().value!);
  }

  /**
   * Newest first, the requests matching every given criterion: one profile each, a sub-request
   * (the fallback handler's) being its request's, linked from it.
   */
  search(criteria: { method?: string; path?: string; status?: number; ip?: string }, limit: number): Profile[] {
    const found: Profile[] = [];
    const all = [...this.#byToken.values()];
    for (let i = all.length - 1; i >= 0 && found.length < limit; i--) {
      const p = all[i]!;
      if (p.parentToken !== undefined) continue;
      if (criteria.method && p.method !== criteria.method) continue;
      if (criteria.path && !p.rawPath.includes(criteria.path)) continue;
      if (criteria.status !== undefined && p.status !== criteria.status) continue;
      if (criteria.ip && p.clientIp !== criteria.ip) continue;
      found.push(p);
    }
    return found;
  }
}

/**
 * The newest `limit` profiles of several newest-first lists, newest first (by request time); a
 * token in more than one list counts once, as the earliest list has it.
 */
export function newestOf(lists: readonly (readonly Profile[])[], limit: number): Profile[] {
  const byToken = new Map<string, Profile>();
  for (const list of lists) for (const p of list) if (!byToken.has(p.token)) byToken.set(p.token, p);
  // A stable sort: profiles of one request (same time) keep their order.
  return [...byToken.values()].sort((a, b) => b.time - a.time).slice(0, limit);
}

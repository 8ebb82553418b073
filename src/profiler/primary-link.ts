/**
 * A worker's side of the shared dev profiler (`WORKERS` > 1): sends its finished profiles to the
 * cluster primary and asks it for those of the other workers.
 */
import cluster from 'node:cluster';
import type { SearchCriteria } from './pages.js';
import type { Profile } from './profile.js';
import { parsePrimaryMessage, type PrimaryMessage, type WorkerMessage } from './protocol.js';

/** How long a worker waits for the primary's answer; then the token is not found. */
export const PRIMARY_TIMEOUT_MS = 1_000;

/** Where messages to the primary go and its answers come from. */
export interface Channel {
  send(message: WorkerMessage): void;
  onMessage(listener: (message: unknown) => void): void;
}

export class PrimaryLink {
  readonly #channel: Channel;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, (answer: PrimaryMessage | undefined) => void>();
  #nextId = 0;

  constructor(channel: Channel, timeoutMs = PRIMARY_TIMEOUT_MS) {
    this.#channel = channel;
    this.#timeoutMs = timeoutMs;
    channel.onMessage((message) => {
      const answer = parsePrimaryMessage(message);
      if (answer) this.#pending.get(answer.id)?.(answer);
    });
  }

  /** Hands a finished profile to the primary (it no longer changes). */
  keep(profile: Profile): void {
    this.#channel.send({ type: 'profiler.keep', profile });
  }

  /** The profile of `token` from any worker; undefined when unknown or the primary is silent. */
  async find(token: string): Promise<Profile | undefined> {
    const answer = await this.#ask((id) => ({ type: 'profiler.find', id, token }));
    return answer?.type === 'profiler.found' ? (answer.profile ?? undefined) : undefined;
  }

  /** The newest matching profiles of all workers; undefined when the primary is silent. */
  async search(criteria: SearchCriteria, limit: number): Promise<readonly Profile[] | undefined> {
    const answer = await this.#ask((id) => ({ type: 'profiler.search', id, criteria, limit }));
    return answer?.type === 'profiler.results' ? answer.profiles : undefined;
  }

  #ask(message: (id: number) => WorkerMessage): Promise<PrimaryMessage | undefined> {
    const id = this.#nextId;
    this.#nextId = (this.#nextId + 1) % Number.MAX_SAFE_INTEGER;
    return new Promise((resolve) => {
      const settle = (answer: PrimaryMessage | undefined) => {
        this.#pending.delete(id);
        clearTimeout(timer);
        resolve(answer);
      };
      const timer = setTimeout(() => settle(undefined), this.#timeoutMs);
      this.#pending.set(id, settle);
      this.#channel.send(message(id));
    });
  }
}

/** The link of a cluster worker to its primary; undefined in a process of its own. */
export function linkToPrimary(): PrimaryLink | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  return new PrimaryLink({
    send(message) {
      // A primary that is gone is stopping the worker too: a question then simply times out.
      if (process.connected) process.send!(message, undefined, undefined, () => {});
    },
    onMessage(listener) {
      process.on('message', listener);
    },
  });
}

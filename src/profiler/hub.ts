/**
 * The cluster primary's side of the dev profiler (`WORKERS` > 1): the one store of every
 * worker's finished profiles, which any worker may ask for a token or a search.
 */
import { unreachable } from '../util/unreachable.js';
import { ProfileStore, type Profile } from './profile.js';
import { parseWorkerMessage, type PrimaryMessage } from './protocol.js';

/**
 * How long a search for an unknown token waits for it to arrive: a link followed at once can
 * reach another worker before the profile's own worker has sent it.
 */
export const UNKNOWN_TOKEN_WAIT_MS = 500;
/** Searches waiting for a token at most; beyond, an unknown token is not found at once. */
export const MAX_WAITING = 1_000;

export class ProfileHub {
  readonly #profiles: ProfileStore;
  readonly #waitMs: number;
  /** Answers owed for tokens not kept yet, by token. */
  readonly #waiting = new Map<string, ((profile: Profile) => void)[]>();
  #waitingCount = 0;

  /** Keeps the newest `max` profiles (PROFILER_MAX). */
  constructor(max: number, waitMs = UNKNOWN_TOKEN_WAIT_MS) {
    this.#profiles = new ProfileStore(max);
    this.#waitMs = waitMs;
  }

  /** How many answers wait for a token. */
  get waiting(): number {
    return this.#waitingCount;
  }

  /**
   * Handles one message from a worker; `reply` answers that worker. Anything that is not a
   * valid profiler message is ignored.
   */
  receive(message: unknown, reply: (answer: PrimaryMessage) => void): void {
    const m = parseWorkerMessage(message);
    if (!m) return;
    switch (m.type) {
      case 'profiler.keep':
        return this.#keep(m.profile);
      case 'profiler.find':
        return this.#find(m.token, (profile) => reply({ type: 'profiler.found', id: m.id, profile }));
      case 'profiler.search':
        return reply({ type: 'profiler.results', id: m.id, profiles: this.#profiles.search(m.criteria, m.limit) });
      default:
        return unreachable(m);
    }
  }

  #keep(profile: Profile): void {
    this.#profiles.add(profile);
    const answers = this.#waiting.get(profile.token);
    if (!answers) return;
    this.#waiting.delete(profile.token);
    for (const answer of answers) answer(profile);
  }

  #find(token: string, answer: (profile: Profile | null) => void): void {
    const profile = this.#profiles.get(token);
    if (profile || this.#waitingCount >= MAX_WAITING) return answer(profile ?? null);
    this.#waitingCount++;
    let answered = false;
    const once = (found: Profile | null) => {
      if (answered) return;
      answered = true;
      this.#waitingCount--;
      clearTimeout(timer);
      answer(found);
    };
    const timer = setTimeout(() => {
      const answers = this.#waiting.get(token);
      const rest = answers?.filter((a) => a !== once) ?? [];
      if (rest.length > 0) this.#waiting.set(token, rest);
      else this.#waiting.delete(token);
      once(null);
    }, this.#waitMs);
    const answers = this.#waiting.get(token);
    if (answers) answers.push(once);
    else this.#waiting.set(token, [once]);
  }
}

/**
 * What a profile keeps of a request: every string masked (README, "Settings"), each text cut at
 * MAX_KEPT_TEXT, and the whole profile bounded by MAX_PROFILE_BYTES (README, "Limits"); whatever is cut
 * leaves a marker where it was.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { headerText } from '../http/index.js';
import { MASK } from '../config/index.js';

/** Any one text a profile keeps (a header, a path, a log line, a problem member) is cut here. */
export const MAX_KEPT_TEXT = 8 * 1024;

/** What one profile keeps at most, all its texts and entries together. */
export const MAX_PROFILE_BYTES = 64 * 1024;

/**
 * The part of MAX_PROFILE_BYTES kept for the response headers, which come last: a request that
 * spent the rest still shows what it was answered (the service's own ten-odd headers fit).
 */
export const RESPONSE_HEADERS_BYTES = 4 * 1024;

/**
 * What a kept text or entry costs beside its characters: V8's own share of a short string held
 * in an array (a header pair of two short strings took 123 bytes of heap on Node 20). Without it
 * a request of 1,400 one-letter headers would cost 170 KiB in 16 KiB of text.
 */
export const ENTRY_BYTES = 64;

/** Headers whose values are credentials, whatever they hold. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/** The marker of the entries a list or an object could not keep. */
export function notKeptMarker(count: number): string {
  return `… [${count} more not kept: the profile's ${MAX_PROFILE_BYTES / 1024} KiB are spent]`;
}

/**
 * The budget of one profile: what it may still keep, in bytes as ENTRY_BYTES counts them. `mask`
 * replaces configured secret values in a text; it is the one masking call of the profiler.
 */
export class ProfileBudget {
  readonly #mask: (text: string) => string;
  #left: number;

  constructor(mask: (text: string) => string, max = MAX_PROFILE_BYTES) {
    this.#mask = mask;
    this.#left = max;
  }

  /** Whether nothing more can be kept. */
  get spent(): boolean {
    return this.#left <= 0;
  }

  /**
   * `text` masked and charged; cut, with a marker, at MAX_KEPT_TEXT or at what is left. Once the
   * budget is spent, a text of a fixed field (the path of a request) is the marker alone.
   */
  text(text: string): string {
    const masked = this.#mask(text);
    const room = Math.max(0, Math.min(MAX_KEPT_TEXT, this.#left - ENTRY_BYTES));
    this.#left -= ENTRY_BYTES + Math.min(masked.length, room);
    if (masked.length <= room) return masked;
    return `${masked.slice(0, room)}… [${masked.length - room} characters cut]`;
  }

  /** Header pairs sorted by name, credential headers masked whole; cut with a marker row. */
  headers(headers: IncomingHttpHeaders | OutgoingHttpHeaders): (readonly [string, string])[] {
    const pairs = Object.entries(headers)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const kept: (readonly [string, string])[] = [];
    for (const [name, value] of pairs) {
      if (this.spent) {
        kept.push(['…', notKeptMarker(pairs.length - kept.length)]);
        break;
      }
      const text = SECRET_HEADERS.has(name.toLowerCase()) ? MASK : (headerText(value) ?? '');
      kept.push([this.text(name), this.text(text)]);
    }
    return kept;
  }

  /**
   * A JSON-like value with every string at any depth kept as `text` keeps it (a 422's
   * `errors[].pointer` included); an array or object past the budget ends in a marker.
   */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      for (const item of value) {
        if (this.spent) return [...kept, notKeptMarker(value.length - kept.length)];
        kept.push(this.value(item));
      }
      return kept;
    }
    if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      const kept: [string, unknown][] = [];
      for (const [key, member] of entries) {
        if (this.spent) {
          kept.push(['…', notKeptMarker(entries.length - kept.length)]);
          break;
        }
        kept.push([this.text(key), this.value(member)]);
      }
      // fromEntries defines own members: a `__proto__` key stays a member.
      return Object.fromEntries(kept);
    }
    this.#left -= ENTRY_BYTES;
    return value;
  }
}

/**
 * What a profile keeps of a request: every string masked (docs/http.md, "Dev profiler"), each text cut at
 * MAX_KEPT_TEXT, and the whole profile bounded by MAX_PROFILE_BYTES (docs/http.md, "Limits"); whatever is
 * cut leaves a marker where it was. A profile's size is what `text-cost.ts` measures, the larger
 * of its JSON and its memory, with ENTRY_BYTES for each thing kept; the parts below add up to
 * MAX_PROFILE_BYTES.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { headerText } from '../http/index.js';
import { MASK } from '../config/index.js';
import { detachedCopy, fitPrefix, textCost } from './text-cost.js';

/** Any one text a profile keeps (a header, a path, a log line, a problem member) is cut at this many bytes of JSON. */
export const MAX_KEPT_TEXT = 8 * 1024;

/** What one profile keeps at most, as JSON and in memory: all its texts and entries together. */
export const MAX_PROFILE_BYTES = 64 * 1024;

/**
 * What a kept text or entry costs beside its characters: V8's own share of a short string held
 * in an array (a header pair of two short strings took 123 bytes of heap on Node 20), and the
 * commas and brackets around it in JSON. Without it a request of 1,400 one-letter
 * headers would cost 170 KiB in 16 KiB of text.
 */
export const ENTRY_BYTES = 64;

/**
 * What a log record costs beside its message: its time, channel and level (the service's own
 * short names) and the object holding them, as JSON and in memory.
 */
export const LOG_RECORD_BYTES = 2 * ENTRY_BYTES;

/**
 * What one marker costs at most: the log record that counts the lines not kept, the longest of
 * them (a test weighs each kind).
 */
export const MARKER_BYTES = 6 * ENTRY_BYTES;

/**
 * Containers nested this deep are kept as they are (a problem, its `errors`, one error); a
 * deeper one is kept as its JSON text. It bounds the markers a cut value can leave: one a level,
 * and one for its last text.
 */
export const MAX_KEPT_DEPTH = 3;

/**
 * What a profile keeps outside its parts, all of bounded length: its token and links, the request
 * id (128 characters at most), the method as sent (one Node's parser knows), times, status and
 * member names.
 */
export const FIXED_FIELDS_BYTES = 1024;

/** One part of a profile, with a budget of its own: its bytes, and the markers that may end it. */
export interface ProfilePart {
  readonly bytes: number;
  /** The most markers the part can hold once spent: they are kept in room set aside for them. */
  readonly markers: number;
}

/** The response headers, which come last: a request that spent the rest still shows what it was answered. */
export const RESPONSE_HEADERS_PART: ProfilePart = Object.freeze({ bytes: 4 * 1024, markers: 2 });

/** The request's attributes (`rest.*`, `_controller`, the token's subject), kept anew whenever they change. */
export const ATTRIBUTES_PART: ProfilePart = Object.freeze({ bytes: 2 * 1024, markers: 2 });

/**
 * The request itself: method, paths, client, request headers, log lines, problem and stack. Its
 * markers: one in place of each text that finds the part spent (three fixed fields, as the method
 * always fits; a header's value after its name spent the part; a problem member's value; the
 * stack) and one ending each list (the headers, the log lines, each level of a problem).
 */
export const REQUEST_PART: ProfilePart = Object.freeze({
  bytes: MAX_PROFILE_BYTES - FIXED_FIELDS_BYTES - ATTRIBUTES_PART.bytes - RESPONSE_HEADERS_PART.bytes,
  markers: 3 + 1 + 1 + 1 + (1 + 1 + MAX_KEPT_DEPTH),
});

/** Headers whose values are credentials, whatever they hold. */
const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/** The marker of the entries a list or an object could not keep. */
export function notKeptMarker(count: number): string {
  return `… [${count} more not kept: the profile's ${MAX_PROFILE_BYTES / 1024} KiB are spent]`;
}

/** The marker ending a text cut after `count` characters more. */
export function cutMarker(count: number): string {
  return `… [${count} characters cut]`;
}

/**
 * The least room a budget keeps while it is not spent: a text of any length cut to its marker
 * alone fits in it, so a text is only ever its marker alone once the budget is spent.
 */
const MIN_TEXT_ROOM = ENTRY_BYTES + 2 * cutMarker(Number.MAX_SAFE_INTEGER).length;

/**
 * The budget of one part of a profile: what it may still keep, in bytes as `text-cost.ts` and
 * ENTRY_BYTES count them. Its markers are kept in the room set aside for them, so content stops
 * short of the part's end. `mask` replaces configured secret values in a text; it is the one
 * masking call of the profiler.
 */
export class ProfileBudget {
  readonly #mask: (text: string) => string;
  readonly #markersRoom: number;
  #left: number;
  #spent = false;

  constructor(mask: (text: string) => string, part: ProfilePart = REQUEST_PART) {
    this.#mask = mask;
    this.#markersRoom = part.markers * MARKER_BYTES;
    this.#left = part.bytes;
  }

  /** Whether nothing more can be kept, only markers. */
  get spent(): boolean {
    return this.#spent;
  }

  /** What content may still take, the markers' room set aside. */
  get #room(): number {
    return this.#left - this.#markersRoom;
  }

  /**
   * Charges `bytes` of an entry the caller keeps beside its texts (a log record), leaving room for
   * one text at least; false, and spent, when they do not fit.
   */
  take(bytes: number): boolean {
    if (this.#spent || this.#room - bytes < MIN_TEXT_ROOM) {
      this.#spent = true;
      return false;
    }
    this.#left -= bytes;
    return true;
  }

  /** Charges what was kept; the budget is spent once less than MIN_TEXT_ROOM is left. */
  #charge(bytes: number): void {
    this.#left -= bytes;
    if (this.#room < MIN_TEXT_ROOM) this.#spent = true;
  }

  /**
   * `text` masked and charged, as a copy of its own; cut, with a marker, at MAX_KEPT_TEXT or at
   * what is left. Once the budget is spent, a text is its marker alone.
   */
  text(text: string): string {
    const masked = this.#mask(text);
    if (!this.#spent) {
      const room = this.#room - ENTRY_BYTES;
      const whole = fitPrefix(masked, Math.min(MAX_KEPT_TEXT, room - 2));
      if (whole.end === masked.length) {
        const cost = Math.max(whole.jsonBytes + 2, whole.wide ? 2 * masked.length : masked.length);
        if (cost <= room) {
          this.#charge(ENTRY_BYTES + cost);
          return detachedCopy(masked);
        }
      }
      const cut = this.#cut(masked, room);
      if (cut !== undefined) return cut;
    }
    this.#spent = true;
    return cutMarker(masked.length);
  }

  /**
   * `masked` cut to fit `room` and MAX_KEPT_TEXT, its marker included; undefined when not even
   * the marker fits. A text cut short of MAX_KEPT_TEXT spends the budget.
   */
  #cut(masked: string, room: number): string | undefined {
    // The marker's digits are at most those of the whole length; its `…` makes the kept text wide.
    const longestMarker = cutMarker(masked.length);
    const markerJson = fitPrefix(longestMarker, Infinity).jsonBytes;
    const jsonRoom = room - 2 - markerJson;
    const unitRoom = Math.floor(room / 2) - longestMarker.length;
    if (jsonRoom < 0 || unitRoom < 0) return undefined;
    if (jsonRoom < MAX_KEPT_TEXT || unitRoom < MAX_KEPT_TEXT) this.#spent = true;
    const prefix = fitPrefix(masked, Math.min(MAX_KEPT_TEXT, jsonRoom), unitRoom);
    const kept = `${masked.slice(0, prefix.end)}${cutMarker(masked.length - prefix.end)}`;
    this.#charge(ENTRY_BYTES + textCost(kept));
    return detachedCopy(kept);
  }

  /** Header pairs sorted by name, credential headers masked whole; cut with a marker row. */
  headers(headers: IncomingHttpHeaders | OutgoingHttpHeaders): (readonly [string, string])[] {
    const pairs = Object.entries(headers)
      .filter(([, value]) => value !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const kept: (readonly [string, string])[] = [];
    for (const [name, value] of pairs) {
      if (this.#spent) {
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
   * `errors[].pointer` included); an array or object past the budget ends in a marker. Containers
   * nested deeper than `depth` are kept as their JSON text.
   */
  value(value: unknown, depth = MAX_KEPT_DEPTH): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null) {
      // A number, a boolean, null: once spent, it stands where a marker would, in the markers' room.
      this.take(ENTRY_BYTES);
      return value;
    }
    if (depth <= 0) return this.text(JSON.stringify(value));
    const spentBefore = !this.take(ENTRY_BYTES);
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      for (const item of value) {
        if (spentBefore || this.#spent) return [...kept, notKeptMarker(value.length - kept.length)];
        kept.push(this.value(item, depth - 1));
      }
      return kept;
    }
    const entries = Object.entries(value);
    const kept: [string, unknown][] = [];
    for (const [key, member] of entries) {
      if (spentBefore || this.#spent) {
        kept.push(['…', notKeptMarker(entries.length - kept.length)]);
        break;
      }
      kept.push([this.text(key), this.value(member, depth - 1)]);
    }
    // fromEntries defines own members: a `__proto__` key stays a member.
    return Object.fromEntries(kept);
  }
}

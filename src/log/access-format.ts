/**
 * Access log lines: one JSON object per answered request, keys always present and in one order,
 * absent texts `null`, at most MAX_LINE_BYTES whatever the client sent. Pure: the access log's
 * sink writes the lines.
 *
 * `{"time":"2026-11-26T02:06:46.123+01:00","request_id":"…","client_ip":"…","method":"POST",
 * "routed_method":"PUT","target":"/settings?x=1","protocol":"HTTP/2","status":200,"bytes":512,
 * "duration_ms":1.234,"user_agent":"curl/8.5.0","referer":null,"subject":"alice","worker":0,
 * "completed":true}`
 */
import { MAX_LINE_BYTES } from './format.js';
import { cutJsonText, jsonNumber, jsonStringContent, measureJsonText } from './json-text.js';
import { decodeUtf8 } from '../util/header-bytes.js';

/**
 * A request's protocol as the line writes it: `HTTP/1.1` and `HTTP/1.0`; `HTTP/2` for a stream of
 * an h2 connection; `HTTP/<major>.<minor>` for another version the HTTP/1 parser took (`HTTP/0.9`,
 * or an `HTTP/2.0` request line, which the app refuses as unsupported); `-` when the parser
 * refused before a request existed. Made of digits, letters and `/.+-` only, and never longer than
 * the widest numbers make it: written as it is, neither masked nor escaped.
 */
export type RequestProtocol = 'HTTP/1.1' | 'HTTP/1.0' | 'HTTP/2' | `HTTP/${number}.${number}` | '-';

/** One answered request, as the server knows it at the end. */
export interface AccessRecord {
  /** Ms since the epoch when the request arrived. */
  readonly time: number;
  readonly requestId: string;
  /** After trusted proxies. */
  readonly clientIp: string;
  /** As sent on the wire (`-` when the parser refused before a method). */
  readonly method: string;
  /** After X-HTTP-Method tunneling. */
  readonly routedMethod: string;
  /** The request target as sent (`-` when unknown). */
  readonly target: string;
  readonly protocol: RequestProtocol;
  /** 0 when the connection closed before any head was written. */
  readonly status: number;
  /** Body bytes of the answer. */
  readonly bytes: number;
  /** Fractional ms, written with 3 decimals at most. */
  readonly durationMs: number;
  /** As received: a character per byte, as Node gives header values; the line shows it read as UTF-8. */
  readonly userAgent: string | undefined;
  readonly referer: string | undefined;
  /** The verified token's `sub` (as a JSON text of it, already a string). */
  readonly subject: string | undefined;
  /** Cluster worker id, 0 when not in a cluster. */
  readonly worker: number;
  /** False when the client went away before the answer was all sent. */
  readonly completed: boolean;
}

/** The line's texts, as written (after `mask`, cut to fit); null where the request had none. */
interface AccessTexts {
  time: string;
  request_id: string;
  client_ip: string;
  method: string;
  routed_method: string;
  target: string;
  user_agent: string | null;
  referer: string | null;
  subject: string | null;
}

type TextKey = keyof AccessTexts;

/**
 * The texts a long line is cut in, and each one's weight in sharing the room: the target (what
 * was asked for) gets four times what any other gets when several are long.
 */
const TEXT_WEIGHTS: Readonly<Record<TextKey, number>> = Object.freeze({
  time: 1, request_id: 1, client_ip: 1, method: 1, routed_method: 1, target: 4, user_agent: 1, referer: 1, subject: 1,
});
const TEXT_KEYS = Object.freeze(Object.keys(TEXT_WEIGHTS) as TextKey[]);

/** The line's protocol, numbers and flag, as the record has them: written as they are. */
type AccessFigures = Pick<AccessRecord, 'protocol' | 'status' | 'bytes' | 'durationMs' | 'worker' | 'completed'>;

/** A number's longest JSON form (17 significant digits, sign, point, exponent): 24 characters. */
const WIDEST_NUMBER: number = -2.2250738585072014e-308;

/**
 * A duration formatMillis writes in 24 characters: past the safe integers in microseconds it is
 * written as JSON writes it (WIDEST_NUMBER itself rounds to `0`).
 */
const WIDEST_DURATION_MS = -1.2345678901234567e300;

/**
 * The longest a protocol can be: `HTTP/` and two of the widest numbers, 54 characters
 * (WIDEST_NUMBER is typed `number`: as a literal, the compiler would not read its text back as a
 * `${number}`).
 */
const WIDEST_PROTOCOL: RequestProtocol = `HTTP/${WIDEST_NUMBER}.${WIDEST_NUMBER}`;

/**
 * The longest a line can be without its texts: keys, punctuation, the widest protocol and
 * numbers, nulls, `false`, the newline.
 */
const WIDEST_FRAME_BYTES: number = writeLine(
  { time: '', request_id: '', client_ip: '', method: '', routed_method: '', target: '', user_agent: null, referer: null, subject: null },
  { protocol: WIDEST_PROTOCOL, status: WIDEST_NUMBER, bytes: WIDEST_NUMBER, durationMs: WIDEST_DURATION_MS, worker: WIDEST_NUMBER, completed: false },
  jsonStringContent,
).length;

/** A line and its size in UTF-8 bytes, so the sink need not measure it again. */
export interface AccessLine {
  readonly text: string;
  readonly bytes: number;
}

/**
 * Masks the configured secrets in a text, and says what in a text may be one (`trigger`: a raw
 * value, an encoding's mark; undefined when no secret is set): the service's SecretMasker.
 */
export interface TextMasker {
  (text: string): string;
  readonly trigger: RegExp | undefined;
}

/**
 * One whole line, newline included, at most MAX_LINE_BYTES long; JSON.parse gives back every
 * value (the texts after `mask`), but for a text cut to fit. The client's texts (request id,
 * methods, target, user agent, referer, subject) pass through `mask`; the protocol is ours and
 * written as it is; `formatTime` writes the arrival (createIsoTimestamper). A line too long cuts
 * its longest texts to their share of the room (the target's share is the largest), each keeping
 * its start and ending with `… [N bytes cut]`.
 */
export function formatAccessLine(record: AccessRecord, formatTime: (ms: number) => string, mask: TextMasker): string {
  return writeAccessLine(record, formatTime, mask, new VerbatimCheck(mask)).text;
}

/** User agents a log remembers as verbatim at most, and the longest it remembers. */
const MAX_REMEMBERED_AGENTS = 1024;
const MAX_REMEMBERED_AGENT_LENGTH = 512;

/**
 * Tells which texts a line may hold as they are between quotes: no character that is not
 * printable ASCII, no quote, no backslash, nothing `mask` may change. One per log: it remembers
 * the user agents it passed (at most MAX_REMEMBERED_AGENTS of at most 512 characters, forgotten
 * all at once when full). Most requests come from a few kinds of client, and a user agent is the
 * longest text of most lines: looking it up costs less than searching it (bench/RESULTS.md, "The
 * access log's cost"). A client sending a new one each time pays the search and the remembering.
 */
export class VerbatimCheck {
  readonly #unwritable: RegExp;
  readonly #agents = new Set<string>();

  constructor(mask: TextMasker) {
    const notPlain = '[^\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]';
    this.#unwritable = new RegExp(mask.trigger === undefined ? notPlain : `${notPlain}|${mask.trigger.source}`);
  }

  /** Whether `text` may be written as it is. */
  text(text: string): boolean {
    return !this.#unwritable.test(text);
  }

  /** Whether a user agent may be written as it is (as received: a character per byte). */
  agent(userAgent: string): boolean {
    if (this.#agents.has(userAgent)) return true;
    if (this.#unwritable.test(userAgent)) return false;
    if (userAgent.length <= MAX_REMEMBERED_AGENT_LENGTH) {
      if (this.#agents.size >= MAX_REMEMBERED_AGENTS) this.#agents.clear();
      this.#agents.add(userAgent);
    }
    return true;
  }
}

/**
 * formatAccessLine's line with its size in bytes; `verbatim` is the log's VerbatimCheck of `mask`.
 *
 * Most lines hold no secret and only printable ASCII: each text is searched once, by one
 * expression, for what would need escaping or masking, and the line is its texts as they are,
 * its length its size: cheaper than joining the texts for one plain check and one mask, with the
 * masker's six substring searches and its readings' checks. A text the expression stops in sends the
 * line the long way, which masks and quotes text by text to the same bytes. The time and the
 * protocol are ours and always plain. A user agent that passes is ASCII, which is what reading it
 * as UTF-8 would give.
 */
export function writeAccessLine(record: AccessRecord, formatTime: (ms: number) => string, mask: TextMasker, verbatim: VerbatimCheck): AccessLine {
  const time = formatTime(record.time);
  const { requestId, clientIp, method, routedMethod, target, userAgent, referer, subject } = record;
  const units = time.length + requestId.length + clientIp.length + method.length + routedMethod.length + target.length +
    (userAgent?.length ?? 0) + (referer?.length ?? 0) + (subject?.length ?? 0);
  if (
    WIDEST_FRAME_BYTES + units <= MAX_LINE_BYTES &&
    verbatim.text(requestId) && verbatim.text(clientIp) && verbatim.text(method) &&
    (routedMethod === method || verbatim.text(routedMethod)) && verbatim.text(target) &&
    (userAgent === undefined || verbatim.agent(userAgent)) &&
    (referer === undefined || verbatim.text(referer)) &&
    (subject === undefined || verbatim.text(subject))
  ) {
    const texts: AccessTexts = {
      time,
      request_id: requestId,
      client_ip: clientIp,
      method,
      routed_method: routedMethod,
      target,
      user_agent: userAgent ?? null,
      referer: referer ?? null,
      subject: subject ?? null,
    };
    const text = writeLine(texts, record, asItIs);
    return { text, bytes: text.length };
  }
  const text = formatMaskedLine(record, time, mask);
  return { text, bytes: Buffer.byteLength(text) };
}

/** jsonStringContent for texts known to be plain. */
const asItIs = (text: string): string => text;

/** The long way: each text masked, checked and quoted on its own, the longest cut to fit. */
function formatMaskedLine(record: AccessRecord, time: string, mask: TextMasker): string {
  const method = mask(record.method);
  const texts: AccessTexts = {
    time,
    request_id: mask(record.requestId),
    client_ip: record.clientIp,
    method,
    // Most requests are not tunnelled: the method is masked once.
    routed_method: record.routedMethod === record.method ? method : mask(record.routedMethod),
    target: mask(record.target),
    user_agent: record.userAgent === undefined ? null : mask(decodeUtf8(record.userAgent)),
    referer: record.referer === undefined ? null : mask(record.referer),
    subject: record.subject === undefined ? null : mask(record.subject),
  };
  // Every code unit is written in at most 6 bytes: most lines need no measuring.
  const units =
    texts.time.length + texts.request_id.length + texts.client_ip.length + texts.method.length + texts.routed_method.length +
    texts.target.length + (texts.user_agent?.length ?? 0) + (texts.referer?.length ?? 0) + (texts.subject?.length ?? 0);
  if (WIDEST_FRAME_BYTES + units * 6 > MAX_LINE_BYTES) fitTexts(texts, record);
  return writeLine(texts, record, jsonStringContent);
}

/**
 * The line, newline included: keys in their order, each text written between quotes by
 * `content` (jsonStringContent), an absent one as `null`; the protocol and the numbers as they
 * are. Added piece by piece, the quotes in the fixed pieces, instead of joined from a list of 41:
 * the join cost more than the additions and the one flattening of the result together (a line
 * that has to wait in a long queue is flattened: see access-log.ts).
 */
function writeLine(texts: AccessTexts, figures: AccessFigures, content: (text: string) => string): string {
  const { user_agent: userAgent, referer, subject } = texts;
  return (
    `{"time":"${content(texts.time)}","request_id":"${content(texts.request_id)}","client_ip":"${content(texts.client_ip)}"` +
    `,"method":"${content(texts.method)}","routed_method":"${content(texts.routed_method)}","target":"${content(texts.target)}"` +
    `,"protocol":"${figures.protocol}","status":${jsonNumber(figures.status)},"bytes":${jsonNumber(figures.bytes)}` +
    `,"duration_ms":${formatMillis(figures.durationMs)}` +
    `,"user_agent":${userAgent === null ? 'null' : `"${content(userAgent)}"`}` +
    `,"referer":${referer === null ? 'null' : `"${content(referer)}"`}` +
    `,"subject":${subject === null ? 'null' : `"${content(subject)}"`}` +
    `,"worker":${jsonNumber(figures.worker)},"completed":${figures.completed ? 'true}\n' : 'false}\n'}`
  );
}

/**
 * `1.235`: milliseconds rounded to 3 decimals, trailing zeros dropped, the same number JSON
 * would write, but built from whole microseconds: printing a fractional double costs more
 * than the rest of the line.
 */
export function formatMillis(durationMs: number): string {
  const micros = Math.round(durationMs * 1000);
  if (!(micros >= 0 && micros <= Number.MAX_SAFE_INTEGER)) return jsonNumber(micros / 1000);
  const whole = Math.floor(micros / 1000);
  const fraction = micros - whole * 1000;
  if (fraction === 0) return `${whole}`;
  if (fraction % 100 === 0) return `${whole}.${fraction / 100}`;
  if (fraction % 10 === 0) return `${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/** Cuts `texts` in place so that the whole line, newline included, takes at most MAX_LINE_BYTES. */
function fitTexts(texts: AccessTexts, figures: AccessFigures): void {
  const frame = { ...texts };
  for (const key of TEXT_KEYS) if (frame[key] !== null) frame[key] = '';
  const room = MAX_LINE_BYTES - writeLine(frame, figures, jsonStringContent).length;
  const sizes = TEXT_KEYS.map((key) => measureJsonText(texts[key] ?? '', Infinity).bytes);
  const shares = shareRoom(sizes, TEXT_KEYS.map((key) => TEXT_WEIGHTS[key]), room);
  TEXT_KEYS.forEach((key, i) => {
    const text = texts[key];
    if (text !== null && sizes[i]! > shares[i]!) texts[key] = cutJsonText(text, sizes[i]!, shares[i]!);
  });
}

/**
 * Shares `room` bytes among texts of `sizes` by `weights` (weighted max-min fairness): a text
 * under its share keeps all of it and leaves the rest to the others, so one long text takes
 * what the short ones leave and two long ones split it by weight.
 */
export function shareRoom(sizes: readonly number[], weights: readonly number[], room: number): number[] {
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a]! / weights[a]! - sizes[b]! / weights[b]!);
  const shares = sizes.map(() => 0);
  let left = Math.max(0, room);
  let weightLeft = weights.reduce((sum, weight) => sum + weight, 0);
  for (const i of order) {
    const share = Math.min(sizes[i]!, Math.floor((left * weights[i]!) / weightLeft));
    shares[i] = share;
    left -= share;
    weightLeft -= weights[i]!;
  }
  return shares;
}

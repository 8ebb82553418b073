/**
 * The invariants every exchange must keep: no unprovoked 5xx, no hang, framing a pipelined
 * next request can rely on, well-formed problem documents, and no secret sent back that the
 * client did not send itself: an echo of its own text is no leak (docs/http.md, "Routing and errors").
 */
import type { Exchange } from './client.js';
import type { RequestModel } from './request-model.js';
import { parseResponseStream, type WireResponse } from './response-stream.js';

export interface Violation {
  readonly invariant:
    | 'no-5xx'
    | 'no-hang'
    | 'framing'
    | 'answer-count'
    | 'problem-shape'
    | 'no-secret'
    | 'log-line'
    | 'dropped-answer';
  readonly detail: string;
}

/**
 * Findings that break no invariant of the tier but are worth a look: a server may close a
 * connection at any time, so a valid pipelined request left unanswered before a close is
 * reported, not failed.
 */
export const WARNINGS: ReadonlySet<Violation['invariant']> = new Set(['dropped-answer']);

export interface Verdict {
  readonly violations: Violation[];
  readonly responses: readonly WireResponse[];
  /** How many single checks were made. */
  readonly checks: number;
}

const HTML_TYPE = 'text/html; charset=UTF-8';
const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'instance'] as const;
/**
 * Node's own minimal answers to bytes its parser refuses, and to an HTTP/1.1 request without
 * Host (no body, Connection: close): accepted, as (docs/http.md, "Routing and errors") allows.
 */
const PARSER_STATUSES = new Set([400, 408, 413, 431]);

/** Checks one exchange against the request model. */
export function checkExchange(model: RequestModel, ex: Exchange, secrets: readonly string[], sentText: string): Verdict {
  const violations: Violation[] = [];
  let checks = 0;
  const check = (ok: boolean, invariant: Violation['invariant'], detail: () => string) => {
    checks++;
    if (!ok) violations.push({ invariant, detail: detail() });
  };
  const methods = [...model.requests.map((r) => r.method), ...model.methodsBeyond];
  const parsed = parseResponseStream(ex.data, methods, ex.closed);
  const { responses } = parsed;

  check(parsed.error === undefined, 'framing', () => `${parsed.error} after ${responses.length} response(s)`);
  if (ex.closed || ex.timedOut) {
    check(parsed.rest.length === 0, 'framing', () => `${parsed.rest.length} byte(s) after the last whole response: ${JSON.stringify(parsed.rest.subarray(0, 120).toString('latin1'))}`);
  }
  for (const secret of secrets) {
    if (sentText.includes(secret)) continue;
    check(!ex.data.includes(secret, 0, 'latin1'), 'no-secret', () => `a configured secret value the request did not hold is in the response bytes`);
  }

  const closeAt = responses.findIndex((r) => saysClose(r));
  check(closeAt < 0 || closeAt === responses.length - 1, 'framing', () => `response ${closeAt + 1} says Connection: close but ${responses.length - closeAt - 1} more followed`);
  const { requests, end } = model;
  const upper = end === 'unsure' ? Infinity : requests.length + (end === 'partial' ? 1 : 0);
  check(responses.length <= upper, 'answer-count', () => `${responses.length} responses to ${requests.length} request(s) (model end: ${end})`);
  const required = end === 'stall' || end === 'unsure' || end === 'refuse' ? requests.length - 1 : requests.length;
  const justified = closeAt >= 0;
  if (ex.closed && !justified) {
    check(responses.length >= required, 'dropped-answer', () => `closed after ${responses.length} of ${required} required answer(s) without Connection: close (model end: ${end})`);
  }
  if (ex.timedOut) {
    check(responses.length >= required || justified, 'no-hang', () => `${responses.length} of ${required} required answer(s) after the deadline (model end: ${end})`);
    check(!justified, 'no-hang', () => 'said Connection: close but kept the connection open past the deadline');
    check(end !== 'close' && end !== 'refuse', 'no-hang', () => `connection still open past the deadline after a request that must close it (${responses.length} answer(s))`);
  }

  responses.forEach((res, i) => {
    const req = requests[i];
    const tag = `response ${i + 1} (${req?.method ?? '?'} -> ${res.status})`;
    check(res.status !== 500, 'no-5xx', () => `${tag}: 500 ${JSON.stringify(res.body.subarray(0, 300).toString('utf8'))}`);
    if (res.status > 500) {
      const provoked = res.status === 501 && (req === undefined ? model.codingsBeyond : req.transferEncoding !== undefined);
      check(provoked, 'no-5xx', () => `${tag}: unprovoked ${res.status}`);
    }
    const routedMethod = req?.routedMethod ?? model.routedBeyond[i - requests.length] ?? 'GET';
    if (res.status >= 400) for (const v of problemViolations(res, routedMethod)) check(false, 'problem-shape', () => `${tag}: ${v}`);
  });
  return { violations, responses, checks };
}

function saysClose(res: WireResponse): boolean {
  return (res.fields.get('connection') ?? []).some((v) => /(^|,)\s*close\s*(,|$)/i.test(v));
}

function field(res: WireResponse, name: string): string | undefined {
  return res.fields.get(name)?.join(', ');
}

/** What is wrong with an error response as a problem document, if anything. */
function problemViolations(res: WireResponse, routedMethod: string): string[] {
  const type = field(res, 'content-type');
  if (type === undefined && res.body.length === 0 && PARSER_STATUSES.has(res.status) && saysClose(res)) return [];
  const out: string[] = [];
  if (type !== 'application/problem+json' && type !== HTML_TYPE) out.push(`content-type ${JSON.stringify(type)} is not a problem type`);
  if (field(res, 'x-robots-tag') !== 'none') out.push(`x-robots-tag ${JSON.stringify(field(res, 'x-robots-tag'))}`);
  if (field(res, 'cache-control') === undefined) out.push('no cache-control');
  // A HEAD, on the wire or tunnelled, has a head only.
  if (routedMethod === 'HEAD') return out;
  if (res.body.length === 0) out.push('empty body');
  else if (type === 'application/problem+json') out.push(...jsonProblemViolations(res));
  else if (type === HTML_TYPE && !/<html|<!doctype/i.test(res.body.toString('utf8', 0, 200))) out.push('HTML body is no page');
  return out;
}

function jsonProblemViolations(res: WireResponse): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(res.body.toString('utf8'));
  } catch {
    return [`body is not JSON: ${JSON.stringify(res.body.subarray(0, 120).toString('utf8'))}`];
  }
  if (typeof doc !== 'object' || doc === null) return ['body is not a JSON object'];
  const record = doc as Record<string, unknown>;
  const out = PROBLEM_MEMBERS.filter((m) => !(m in record)).map((m) => `member "${m}" missing`);
  if (record.status !== res.status) out.push(`status member ${JSON.stringify(record.status)} differs from ${res.status}`);
  return out;
}

/**
 * One profile being recorded: what the request sent, its attributes, log lines and problem, and,
 * once its answer ends, its status and response headers, each part kept within its budget
 * (`kept.ts`), so that a finished profile is at most MAX_PROFILE_BYTES.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ProblemDocument } from '../core/index.js';
import type { RequestContext } from '../http/index.js';
import { ATTRIBUTES_PART, LOG_RECORD_BYTES, ProfileBudget, RESPONSE_HEADERS_PART, notKeptMarker } from './kept.js';
import type { LogRecord, Profile } from './profile.js';

/** What a profile is started with: its token, its parent's (a sub-request's), and the request. */
export interface RecordingStart {
  readonly token: string;
  readonly parentToken: string | undefined;
  readonly ctx: RequestContext;
  readonly headers: IncomingHttpHeaders;
  /** Replaces configured secret values in a text. */
  readonly mask: (text: string) => string;
}

/** The attribute naming the verified token's subject. */
const SUBJECT = 'security.subject';

export class ProfileRecording {
  readonly profile: Profile;
  readonly #mask: (text: string) => string;
  readonly #budget: ProfileBudget;
  #logsNotKept = 0;

  constructor({ token, parentToken, ctx, headers, mask }: RecordingStart) {
    this.#mask = mask;
    const budget = new ProfileBudget(mask);
    this.#budget = budget;
    this.profile = {
      token,
      parentToken,
      children: [],
      time: ctx.receivedAt,
      requestId: ctx.requestId,
      method: budget.text(ctx.method),
      originalMethod: ctx.originalMethod,
      rawPath: budget.text(ctx.rawPath),
      target: budget.text(ctx.target),
      clientIp: budget.text(ctx.clientIp),
      requestHeaders: budget.headers(headers),
      responseHeaders: [],
      attributes: this.#kept({ ...ctx.attributes }),
      status: undefined,
      durationMs: undefined,
      logs: [],
      problem: undefined,
      stack: undefined,
    };
  }

  /** Keeps the attributes anew (routing decides the zone, then who answers: `_controller`). */
  keepAttributes(attributes: Readonly<Record<string, unknown>>): void {
    this.profile.attributes = this.#kept(attributes);
  }

  /** Keeps a log line, or once the budget is spent, counts it in one marker line at the end. */
  keepLog(at: number, channel: string, level: LogRecord['level'], message: string): void {
    const { logs } = this.profile;
    if (this.#budget.take(LOG_RECORD_BYTES)) {
      logs.push({ at, channel, level, message: this.#budget.text(message) });
      return;
    }
    if (this.#logsNotKept > 0) logs.pop();
    this.#logsNotKept++;
    logs.push({ at, channel: 'profiler', level: 'NOTICE', message: notKeptMarker(this.#logsNotKept) });
  }

  /** Keeps the problem the request was answered with, every member at any depth masked and charged. */
  keepProblem(doc: ProblemDocument, stack: string | undefined): void {
    this.profile.problem = this.#budget.value(doc) as ProblemDocument;
    this.profile.stack = stack === undefined ? undefined : this.#budget.text(stack);
  }

  /** Completes the profile as its answer ends. */
  finish(status: number | undefined, durationMs: number, responseHeaders: OutgoingHttpHeaders): void {
    this.profile.status = status;
    this.profile.durationMs = durationMs;
    this.profile.responseHeaders = new ProfileBudget(this.#mask, RESPONSE_HEADERS_PART).headers(responseHeaders);
  }

  /** Attributes as kept: a budget of their own, each time anew, so that changing them spends nothing else. */
  #kept(attributes: Readonly<Record<string, unknown>>): Record<string, unknown> {
    // The token's subject, the one attribute of a length chosen outside, goes last: cut, it
    // cannot crowd out the service's own (`_controller`).
    const { [SUBJECT]: subject, ...own } = attributes;
    const ordered = subject === undefined ? own : { ...own, [SUBJECT]: subject };
    // They are flat (names to texts and flags): anything nested is kept as its JSON text.
    return new ProfileBudget(this.#mask, ATTRIBUTES_PART).value(ordered, 1) as Record<string, unknown>;
  }
}

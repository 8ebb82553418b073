/**
 * How an observer (the dev profiler) watches the app: the app calls it at each step of a
 * request and never knows what it does. Like a diagnostics channel, but typed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceRoute, RequestContext } from '../http/index.js';
import type { SourceLink, ProblemAnswer, ProblemDocument } from '../core/index.js';
import type { LogLevel } from '../log/index.js';

/** The controller id of the fallback problem handler, which answers every unmatched request. */
export const FALLBACK_CONTROLLER = 'rest.problem.fallback::index';

/** What the dev error page may link for a request. */
export interface ProblemPageLinks {
  /** The request's own profile. */
  readonly profile: string | undefined;
  /** A stack frame's source. */
  readonly source: SourceLink | undefined;
  /** The stack as the page should show it (frames of the built files mapped to their sources). */
  readonly mapStack: (stack: string) => string;
}

export interface AppObserver {
  /** Routes the observer answers itself (the profiler's pages), matched before the app's own. */
  readonly routes: readonly ServiceRoute[];
  /** A request arrived: its context is resolved, nothing is routed yet. */
  began(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): void;
  /**
   * Who answers: a route's id, the fallback handler's, or none (a 405). Told before the answer's
   * head is written; told again if a handler hands the request to the fallback.
   */
  routed(ctx: RequestContext, res: ServerResponse, controller: string | undefined): void;
  /** A log line of the request, as written (secrets masked). */
  logged(ctx: RequestContext, channel: string, level: LogLevel, message: string): void;
  /**
   * The request is answered with a problem: its document with secrets masked in every string,
   * nested members included (the answer itself echoes the client as it sent), its stack in debug.
   */
  problem(ctx: RequestContext, doc: ProblemDocument, stack: string | undefined): void;
  /** What the dev error page of the request may link. */
  pageLinks(ctx: RequestContext): ProblemPageLinks;
}

/**
 * The controller that answers, from the routing outcome: the matched route's, unless the answer
 * is "No route found" (the fallback's, a missing static file included) or a 405 (none, as the
 * router names none for its own).
 */
export function controllerFor(routeId: string | undefined, problem: ProblemAnswer | undefined): string | undefined {
  if (problem?.code === 'route_not_found') return FALLBACK_CONTROLLER;
  if (problem?.code === 'method_not_allowed') return undefined;
  return routeId;
}

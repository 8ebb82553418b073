/**
 * What a route's handler is: shared by the app, the profiler and the poster API, so none of
 * them imports another to know it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from './request.js';

/** What the router took from the path: `{name}` parameters and the `{name*}` segments. */
export interface HandlerMatch {
  readonly params: Readonly<Record<string, string>>;
  readonly rest: readonly string[];
}

/** Answers a matched request; throw a Problem to answer with one. */
export type Handler = (
  ctx: RequestContext,
  req: IncomingMessage,
  res: ServerResponse,
  match: HandlerMatch,
) => void | Promise<void>;

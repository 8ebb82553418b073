/**
 * What a route's handler is: shared by the app, the profiler and the poster API, so none of
 * them imports another to know it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../core/index.js';
import type { RequestContext } from './request.js';
import type { HeaderList } from './response.js';

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

/** A route of the service: its pattern and handler, and what every answer of it carries. */
export interface ServiceRoute extends Route<Handler> {
  /**
   * Headers a problem answer of this route carries beside its own, from the request (the poster
   * API's CORS headers, so a browser can read its errors); a `vary` is merged into the problem's.
   */
  readonly problemHeaders?: (req: IncomingMessage) => HeaderList;
}

/**
 * One request's way through the service: context -> router -> handler | fallback -> response.
 * This is the one boundary that turns problems into responses and log lines.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Config } from './config.js';
import {
  DEFAULT_SERVICE_DOCUMENT,
  buildEntryPoint,
  renderEntryPoint,
  type ServiceDocumentSource,
} from './entry-point.js';
import type { Logger } from './log.js';
import { negotiate } from './negotiation.js';
import {
  InternalError,
  MethodNotAllowed,
  Problem,
  RouteNotFound,
  buildProblemDocument,
  problemHeaders,
  renderProblem,
} from './problem.js';
import { namespaceUrl, resolveRequest, type RequestContext } from './request.js';
import { sendBody } from './response.js';
import { compileRoutes, matchRoute, type Route } from './router.js';

/** Answers a matched request; throw a Problem to answer with one. */
export type Handler = (ctx: RequestContext, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export const FALLBACK_CONTROLLER = 'rest.problem.fallback::index';

export interface AppOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** Milliseconds since the epoch; injected so tests can freeze time. */
  readonly clock?: () => number;
  readonly serviceDocument?: ServiceDocumentSource;
}

/** Builds the request listener of the service. */
export function createApp(options: AppOptions): RequestListener {
  const { config, logger } = options;
  const clock = options.clock ?? Date.now;
  const readServiceDocument = options.serviceDocument ?? (() => DEFAULT_SERVICE_DOCUMENT);

  const entryPoint: Handler = async (ctx, _req, res) => {
    const doc = buildEntryPoint(await readServiceDocument(), config.namespaces, ctx.baseUrl);
    const { contentType, body } = renderEntryPoint(doc, representationFor(ctx));
    sendBody(res, 200, { 'content-type': contentType, vary: 'Accept', 'cache-control': 'no-cache, private' }, body, ctx.receivedAt);
  };

  const routes = compileRoutes<Handler>([
    { id: 'app.entry_point', path: '/', methods: ['OPTIONS', 'GET', 'HEAD'], handler: entryPoint },
  ]);

  function representationFor(ctx: RequestContext) {
    return ctx.attributes['rest.service.zone'] ? 'json' : negotiate(ctx.accept);
  }

  function answerProblem(ctx: RequestContext, res: ServerResponse, problem: Problem): void {
    const doc = buildProblemDocument(problem, namespaceUrl(config.namespaces.problem, ctx.baseUrl), ctx.rawPath, config.debug);
    const cause = problem instanceof InternalError ? problem.cause : undefined;
    logProblem(problem, doc.type, cause);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const { contentType, body } = renderProblem(doc, representationFor(ctx), {
      debug: config.debug,
      method: ctx.method,
      target: ctx.target,
      clientIp: ctx.clientIp,
      profilerLink: undefined,
      stack: config.debug && cause instanceof Error ? cause.stack : undefined,
    });
    const headers = {
      ...problemHeaders(problem, ctx.receivedAt, config.notFoundCacheControl),
      'content-type': contentType,
      vary: 'Accept',
    };
    sendBody(res, problem.status, headers, body, ctx.receivedAt);
  }

  function logProblem(problem: Problem, type: string, cause: unknown): void {
    if (problem.status >= 500) {
      const stack = cause instanceof Error && cause.stack ? ` ${cause.stack}` : '';
      const name = cause instanceof Error ? cause.name : 'Error';
      logger.log('request', 'CRITICAL', `Uncaught ${name}: "${problem.message}"${stack}`);
    } else {
      logger.log('request', 'ERROR', problem.message);
    }
    if (type !== 'about:blank') {
      logger.log('app', 'ERROR', `Incident: - Type: ${type} - Cause: ${problem.status} - Title: ${problem.title}`);
    }
  }

  async function dispatch(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (ctx.rejection) return answerProblem(ctx, res, ctx.rejection);
    const match = matchRoute(routes, ctx.method, ctx.segments);
    switch (match.kind) {
      case 'matched': {
        ctx.attributes._controller = match.route.id;
        if (ctx.method === 'OPTIONS') {
          sendBody(res, 204, { allow: match.route.methods.join(', ') }, '', ctx.receivedAt);
          return;
        }
        return match.route.handler(ctx, req, res);
      }
      case 'methodNotAllowed':
        return answerProblem(ctx, res, new MethodNotAllowed(ctx.method, ctx.rawPath, match.allow));
      case 'notFound':
        ctx.attributes._controller = FALLBACK_CONTROLLER;
        return answerProblem(ctx, res, new RouteNotFound(ctx.method, ctx.rawPath, ctx.referer));
      default:
        return unreachable(match);
    }
  }

  return (req, res) => {
    const ctx = resolveRequest(req, config, clock());
    dispatch(ctx, req, res).catch((err: unknown) => {
      answerProblem(ctx, res, err instanceof Problem ? err : new InternalError(err));
    });
  };
}

function unreachable(value: never): never {
  throw new TypeError(`unhandled case: ${JSON.stringify(value)}`);
}

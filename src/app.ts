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
  type ServiceDocument,
  type ServiceDocumentSource,
} from './entry-point.js';
import type { Logger, LogLevel } from './log.js';
import { createProfiler } from './profiler/index.js';
import type { Profile } from './profiler/profile.js';
import { negotiate } from './http/negotiation.js';
import {
  InternalError,
  MethodNotAllowed,
  Problem,
  RouteNotFound,
  buildProblemDocument,
  problemHeaders,
  renderProblem,
  type ProblemDocument,
} from './problem.js';
import { isUnder, namespaceUrl, resolveRequest, type RequestContext } from './http/request.js';
import { frameForWireMethod, sendBody } from './http/response.js';
import { createSecretMasker } from './secrets.js';
import { compileRoutes, matchRoute, type Route } from './router.js';
import { STATIC_METHODS, createStaticHandler } from './static.js';
import { unreachable } from './util/unreachable.js';

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

export const FALLBACK_CONTROLLER = 'rest.problem.fallback::index';

export interface AppOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** Milliseconds since the epoch; injected so tests can freeze time. */
  readonly clock?: () => number;
  readonly serviceDocument?: ServiceDocumentSource;
  /** Routes enabled by settings (the poster API), matched after the built-in ones. */
  readonly routes?: readonly Route<Handler>[];
}

/** Builds the request listener of the service. */
export function createApp(options: AppOptions): RequestListener {
  const { config, logger } = options;
  const clock = options.clock ?? Date.now;
  const readServiceDocument = options.serviceDocument ?? (() => DEFAULT_SERVICE_DOCUMENT);

  /** Rendered entry points by representation and base URL, while the document stays the same. */
  const renderedEntryPoints = new Map<string, { doc: ServiceDocument; contentType: string; body: Buffer }>();

  const entryPoint: Handler = (ctx, _req, res) => {
    const doc = readServiceDocument();
    // The store answers synchronously; a promise only from a source that needs one.
    if (doc instanceof Promise) return doc.then((d) => sendEntryPoint(ctx, res, d));
    sendEntryPoint(ctx, res, doc);
  };

  function sendEntryPoint(ctx: RequestContext, res: ServerResponse, doc: ServiceDocument): void {
    const representation = representationFor(ctx);
    const key = `${representation} ${ctx.baseUrl}`;
    let rendered = renderedEntryPoints.get(key);
    if (rendered?.doc !== doc) {
      const { contentType, body } = renderEntryPoint(buildEntryPoint(doc, config.namespaces, ctx.baseUrl), representation);
      rendered = { doc, contentType, body: Buffer.from(body) };
      // Base URLs come from Host headers: a bound keeps their variety from growing the map.
      if (renderedEntryPoints.size >= 64) renderedEntryPoints.clear();
      renderedEntryPoints.set(key, rendered);
    }
    sendBody(res, 200, { 'content-type': rendered.contentType, vary: 'Accept', 'cache-control': 'no-cache, private' }, rendered.body, ctx.receivedAt);
  }

  const profiler = config.appEnv === 'dev' && config.debug ? createProfiler(config, clock) : undefined;
  /** The profiles of a request in progress (dev only): the main one and the fallback's. */
  const profilesOf = new WeakMap<RequestContext, { main: Profile; fallback?: Profile }>();

  const serveStatic = createStaticHandler({ publicDir: config.publicDir, notFoundController: FALLBACK_CONTROLLER });

  const routes = compileRoutes<Handler>([
    { id: 'app.entry_point', path: '/', methods: ['OPTIONS', 'GET', 'HEAD'], handler: entryPoint },
    ...(profiler?.routes ?? []),
    ...(options.routes ?? []),
    // Last: with STATIC_BASE=/ it would otherwise claim every other route's paths.
    {
      id: 'app.static',
      path: `${config.namespaces.static.path}{path*}`,
      methods: STATIC_METHODS,
      // The file decides: 405 when it exists, 404 like any unrouted path when it does not.
      handlesEveryMethod: true,
      handler: (ctx, req, res, { rest }) => serveStatic(ctx, req, res, rest),
    },
  ]);

  function representationFor(ctx: RequestContext) {
    return ctx.attributes['rest.service.zone'] ? 'json' : negotiate(ctx.accept);
  }

  const mask = createSecretMasker(config);

  /** Writes a log line (secrets masked), and adds it to the request's profiles in dev. */
  function log(ctx: RequestContext, channel: string, level: LogLevel, message: string): void {
    logger.log(channel, level, mask(message));
    if (!profiler) return;
    const profiles = profilesOf.get(ctx);
    if (profiles) {
      profiler.record(profiles.main, channel, level, message);
      if (profiles.fallback) profiler.record(profiles.fallback, channel, level, message);
    }
  }

  function answerProblem(ctx: RequestContext, res: ServerResponse, problem: Problem): void {
    let profiles = profiler ? profilesOf.get(ctx) : undefined;
    if (problem instanceof RouteNotFound) {
      // Unrouted paths (and missing static files) are the fallback handler's, as a sub-request.
      ctx.attributes._controller = FALLBACK_CONTROLLER;
      if (profiler && !res.headersSent) {
        // Profiler pages are not profiled, but an unmatched path under /_profiler/ is (SPEC 9).
        const main = profiles?.main ?? profiler.begin(ctx, res.req, res, { unmatched: true });
        if (main && !profiles) profilesOf.set(ctx, (profiles = { main }));
        if (profiles && !profiles.fallback) profiles.fallback = profiler.beginFallback(profiles.main, ctx, res);
      }
    }
    const doc = maskDocument(
      buildProblemDocument(problem, namespaceUrl(config.namespaces.problem, ctx.baseUrl), ctx.rawPath, config.debug),
    );
    const cause = problem instanceof InternalError ? problem.cause : undefined;
    const rawStack = config.debug && cause instanceof Error ? cause.stack : undefined;
    const stack = rawStack === undefined ? undefined : mask(profiler ? profiler.mapStack(rawStack) : rawStack);
    logProblem(ctx, problem, doc.type, cause);
    if (profiler && profiles) {
      profiler.recordProblem(profiles.main, doc, stack);
      if (profiles.fallback) profiler.recordProblem(profiles.fallback, doc, stack);
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const { contentType, body } = renderProblem(doc, representationFor(ctx), {
      debug: config.debug,
      method: ctx.method,
      target: mask(ctx.target),
      clientIp: ctx.clientIp,
      profilerLink: profiles ? `${ctx.baseUrl}/_profiler/${profiles.main.token}` : undefined,
      stack,
      sourceLink: profiler?.sourceLink,
    });
    const headers = problemHeaders(problem, ctx.receivedAt, config.notFoundCacheControl);
    headers['content-type'] = contentType;
    headers.vary = 'Accept';
    sendBody(res, problem.status, headers, body, ctx.receivedAt);
  }

  function logProblem(ctx: RequestContext, problem: Problem, type: string, cause: unknown): void {
    if (problem instanceof InternalError) {
      const stack = cause instanceof Error && cause.stack ? ` ${cause.stack}` : '';
      const name = cause instanceof Error ? cause.name : 'Error';
      log(ctx, 'request', 'CRITICAL', `Uncaught ${name}: "${problem.message}"${stack}`);
    } else {
      log(ctx, 'request', problem.status >= 500 ? 'CRITICAL' : 'ERROR', problem.message);
    }
    if (type !== 'about:blank') {
      log(ctx, 'app', 'ERROR', `Incident: - Type: ${type} - Cause: ${problem.status} - Title: ${problem.title}`);
    }
  }

  /** The document with secret values masked in every text member. */
  function maskDocument(doc: ProblemDocument): ProblemDocument {
    let masked: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(doc)) {
      if (typeof value !== 'string') continue;
      const text = mask(value);
      if (text !== value) (masked ??= { ...doc })[key] = text;
    }
    return (masked as ProblemDocument | undefined) ?? doc;
  }

  /** Routes and answers; returns a promise only when the handler is asynchronous. */
  function dispatch(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): void | Promise<void> {
    if (ctx.rejection) return answerProblem(ctx, res, ctx.rejection);
    const match = matchRoute(routes, ctx.method, ctx.segments);
    switch (match.kind) {
      case 'matched': {
        ctx.attributes._controller = match.route.id;
        ctx.attributes['rest.service.zone'] = isUnder(config.namespaces.service, ctx.rawPath, ctx.segments);
        // A route that lists OPTIONS answers it here; one that handles every method decides itself.
        if (ctx.method === 'OPTIONS' && match.route.methods.includes('OPTIONS')) {
          sendBody(res, 204, { allow: match.route.methods.join(', ') }, '', ctx.receivedAt);
          return;
        }
        return match.route.handler(ctx, req, res, { params: match.params, rest: match.rest });
      }
      case 'methodNotAllowed':
        return answerProblem(ctx, res, new MethodNotAllowed(ctx.method, ctx.rawPath, match.allow));
      case 'notFound':
        return answerProblem(ctx, res, new RouteNotFound(ctx.method, ctx.rawPath, ctx.referer));
      default:
        return unreachable(match);
    }
  }

  return (req, res) => {
    const ctx = resolveRequest(req, config, clock());
    frameForWireMethod(res, ctx.method, ctx.originalMethod);
    const main = profiler?.begin(ctx, req, res);
    if (main) profilesOf.set(ctx, { main });
    const fail = (err: unknown) => {
      try {
        answerProblem(ctx, res, err instanceof Problem ? err : new InternalError(err));
      } catch (failure) {
        // Rendering the problem failed too: say so on stderr and drop the connection.
        process.stderr.write(`cannot answer ${ctx.method} ${ctx.rawPath}: ${String(failure)}\n`);
        res.destroy();
      }
    };
    try {
      const pending = dispatch(ctx, req, res);
      if (pending) pending.catch(fail);
    } catch (err) {
      fail(err);
    }
  };
}

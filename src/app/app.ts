/**
 * One request's way through the service: context -> router -> handler | fallback -> response.
 * Problems become responses in one place (`problem-responder.ts`); an observer (the dev
 * profiler) is told each step and the app never knows what it does.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AppObserver } from './app-observer.js';
import { type Config, createSecretMasker } from '../config/index.js';
import type { ServiceDocumentSource } from '../store/index.js';
import { createEntryPointHandler } from './entry-point-handler.js';
import { type ServiceRoute, createNegotiator, resolveRequest, underNamespace, type RequestContext, createRequestIdSource, echoRequestId, frameForWireMethod, sendBody } from '../http/index.js';
import type { Logger } from '../log/index.js';
import { InternalError, Problem, type ProblemAnswer, type Representation, compileRoutes, matchRoute, methodNotAllowed, routeNotFound } from '../core/index.js';
import { createProblemResponder, type ProblemResponder } from './problem-responder.js';
import { STATIC_METHODS, createStaticHandler } from '../static/index.js';

export type { Handler, HandlerMatch } from '../http/index.js';
export { FALLBACK_CONTROLLER, type AppObserver } from './app-observer.js';

/** Watches one request of the app until its answer ends (the access log, the metrics). */
export type WatchRequest = (ctx: RequestContext, req: IncomingMessage, res: ServerResponse) => void;

export interface AppOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** Milliseconds since the epoch; injected so tests can freeze time. */
  readonly clock?: () => number;
  readonly serviceDocument?: ServiceDocumentSource;
  /** Routes enabled by settings (the poster API), matched after the built-in ones. */
  readonly routes?: readonly ServiceRoute[];
  /** Told every step of every request (the dev profiler); its own routes come first. */
  readonly observer?: AppObserver;
  /** Watches every request until its answer ends (the access log, the metrics). */
  readonly watch?: WatchRequest;
  /** Makes request ids (default: a source of the app's own). */
  readonly newRequestId?: () => string;
}

/** Builds the request listener of the service. */
export function createApp(options: AppOptions): RequestListener {
  const { config, observer, watch } = options;
  const newRequestId = options.newRequestId ?? createRequestIdSource();
  const clock = options.clock ?? Date.now;
  const negotiate = createNegotiator();
  const representationFor = (ctx: RequestContext) => (ctx.attributes['rest.service.zone'] ? 'json' : negotiate(ctx.accept));
  // One masker (its secrets compiled once) for the app and its problem responder.
  const maskSecrets = createSecretMasker(config);
  const answer = answerOrDrop(createProblemResponder({ config, logger: options.logger, observer, representationFor, mask: maskSecrets }), maskSecrets);
  /** Answers what a handler threw: a Problem as itself, anything else as an InternalError. */
  const fail = (ctx: RequestContext, req: IncomingMessage, res: ServerResponse, err: unknown, route: ServiceRoute | undefined) =>
    answer(ctx, req, res, err instanceof Problem ? err : new InternalError(err), route);
  const inServiceZone = underNamespace(config.namespaces.service);
  const routes = compileRoutes(appRoutes(options, representationFor));

  return (req, res) => {
    const ctx = resolveRequest(req, config, clock(), newRequestId);
    frameForWireMethod(res, ctx.method, ctx.originalMethod);
    echoRequestId(res, ctx.requestId);
    watch?.(ctx, req, res);
    observer?.began(ctx, req, res);
    let route: ServiceRoute | undefined;
    try {
      if (ctx.rejection) return answer(ctx, req, res, ctx.rejection, undefined);
      const match = matchRoute(routes, ctx.method, ctx.segments);
      if (match.kind === 'methodNotAllowed') {
        // The path exists: a 405 under SERVICE_BASE is the service's answer, JSON like its others.
        ctx.attributes['rest.service.zone'] = inServiceZone(ctx.rawPath, ctx.segments);
        return answer(ctx, req, res, methodNotAllowed(ctx.method, ctx.rawPath, match.allow), undefined);
      }
      if (match.kind === 'notFound') return answer(ctx, req, res, routeNotFound(ctx.method, ctx.rawPath, ctx.referer), undefined);
      route = match.route;
      ctx.attributes['rest.service.zone'] = inServiceZone(ctx.rawPath, ctx.segments);
      observer?.routed(ctx, res, route.id);
      // A route that lists OPTIONS answers it here; one that handles every method decides itself.
      if (ctx.method === 'OPTIONS' && match.route.methods.includes('OPTIONS')) {
        return sendBody(res, 204, ['allow', match.route.methods.join(', ')], '', ctx.receivedAt);
      }
      // The match itself carries the handler's params and rest.
      const pending = match.route.handler(ctx, req, res, match);
      if (pending) {
        const matched = route;
        pending.catch((err: unknown) => fail(ctx, req, res, err, matched));
      }
    } catch (err) {
      fail(ctx, req, res, err, route);
    }
  };
}

/** Every route of the app, in the order they are matched. */
function appRoutes(options: AppOptions, representationFor: (ctx: RequestContext) => Representation): ServiceRoute[] {
  const { config, observer } = options;
  const serveStatic = createStaticHandler({ publicDir: config.publicDir });
  return [
    { id: 'app.entry_point', path: '/', methods: ['OPTIONS', 'GET', 'HEAD'], handler: createEntryPointHandler(config, options.serviceDocument, representationFor) },
    ...(observer?.routes ?? []),
    ...(options.routes ?? []),
    // Last: with STATIC_BASE=/ it would otherwise claim every other route's paths. The file
    // decides: 405 when it exists, 404 like any unrouted path when it does not.
    { id: 'app.static', path: `${config.namespaces.static.path}{path*}`, methods: STATIC_METHODS, handlesEveryMethod: true, handler: (ctx, req, res, { rest }) => serveStatic(ctx, req, res, rest) },
  ];
}

/**
 * Answers a problem for a request that `route` matched, if any, with the route's own problem
 * headers; when answering fails too, says so on stderr (secrets masked) and drops the connection.
 */
function answerOrDrop(answerProblem: ProblemResponder, mask: (text: string) => string) {
  return (ctx: RequestContext, req: IncomingMessage, res: ServerResponse, problem: ProblemAnswer, route: ServiceRoute | undefined): void => {
    try {
      answerProblem(ctx, res, problem, route?.id, route?.problemHeaders?.(req));
    } catch (failure) {
      process.stderr.write(mask(`cannot answer ${ctx.method} ${ctx.rawPath}: ${String(failure)}`) + '\n');
      res.destroy();
    }
  };
}

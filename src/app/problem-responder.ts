/**
 * The one boundary that turns problems into responses and log lines: the document, its
 * representation, the observed headers, the `request.*` and incident lines, and what an
 * observer is told. Anything that is not a Problem arrives here as an InternalError.
 *
 * Secrets (docs/http.md, "Routing and errors"): the answer echoes what the client sent as it sent it, so no answer changes
 * when a guess of a secret is right; the log lines and what the observer (the dev profiler) is
 * told are masked, for operators read them.
 *
 * Every line is logged with the request's id, the answer's `X-Request-Id` (a proxy's masked, as
 * the access line writes it), which a sink that writes ids ends the line with.
 */
import type { ServerResponse } from 'node:http';
import { controllerFor, type AppObserver, type ProblemPageLinks } from './app-observer.js';
import { type Config, createSecretMasker, mapEveryString } from '../config/index.js';
import { namespaceUrl, type RequestContext, createHttpDateFormatter, sendBody, type HeaderList } from '../http/index.js';
import type { Logger, LogLevel } from '../log/index.js';
import { PlainProblemPages, buildProblemDocument, notFoundCachePolicy, problemHeaders, problemTitle, problemVary, renderProblem, type ProblemAnswer, type ProblemDocument, type ProblemPageContext, type Representation } from '../core/index.js';

export interface ProblemResponderOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly observer: AppObserver | undefined;
  readonly representationFor: (ctx: RequestContext) => Representation;
  /** The app's secret masker, shared (default: one compiled for the responder alone). */
  readonly mask?: (text: string) => string;
}

/**
 * Answers `problem` for a request whose matched route (if any) was `routeId`, with the route's
 * own headers for its problem answers (`ServiceRoute.problemHeaders`) if it has any.
 */
export type ProblemResponder = (
  ctx: RequestContext, res: ServerResponse, problem: ProblemAnswer, routeId: string | undefined, routeHeaders?: HeaderList,
) => void;

/** Outside debug a problem page shows nothing of the request: nothing of it is read. */
const PLAIN_PAGE: Readonly<ProblemPageContext> = { debug: false, method: '', target: '', clientIp: '', profilerLink: undefined, stack: undefined };

export function createProblemResponder({ config, logger, observer, representationFor, ...options }: ProblemResponderOptions): ProblemResponder {
  const mask = options.mask ?? createSecretMasker(config);
  const notFoundPolicy = notFoundCachePolicy(config.notFoundCacheControl);
  /** Expires dates: the app's own formatter, which formats once per second like Date. */
  const expiresDate = createHttpDateFormatter();
  // The Date of a 404 that carries Expires, formatted once a second rather than per answer.
  const responseDate = createHttpDateFormatter();
  const plainPages = new PlainProblemPages();
  // Without a trusted proxy every id is one the service made (32 hex digits): no client text,
  // nothing to mask, and a 404 is spared the masker's search.
  const maskId = config.trustedProxies.trustsAnyPeer || config.trustedProxies.ranges.length > 0 ? mask : undefined;

  /** Writes a log line whose secrets are masked already, the id `requestId` too, and tells the observer. */
  function writeLine(ctx: RequestContext, requestId: string, channel: string, level: LogLevel, line: string): void {
    logger.log(channel, level, line, requestId);
    observer?.logged(ctx, channel, level, line);
  }

  return (ctx, res, problem, routeId, routeHeaders) => {
    const controller = controllerFor(routeId, problem);
    if (observer && controller !== routeId && !res.headersSent) observer.routed(ctx, res, controller);
    const built = buildProblemDocument(problem, namespaceUrl(config.namespaces.problem, ctx.baseUrl), ctx.rawPath, config.debug);
    const unexpected = problem.code === 'internal_error';
    const cause = unexpected ? problem.cause : undefined;
    // An unexpected error's message (shown in debug only) is the service's own text, not the
    // client's: masked, like its stack. Every other detail echoes the client as it sent.
    const doc = unexpected && config.debug ? { ...built, detail: mask(built.detail) } : built;
    const links = config.debug ? observer?.pageLinks(ctx) : undefined;
    const rawStack = config.debug && cause instanceof Error ? cause.stack : undefined;
    const stack = rawStack === undefined ? undefined : mask(links ? links.mapStack(rawStack) : rawStack);
    // A proxy's id is the client's text: masked once for both lines, as the access line masks it.
    logProblem(writeLine, mask, maskId === undefined ? ctx.requestId : maskId(ctx.requestId), ctx, problem, doc, cause);
    // The masker compiled once above, not the secrets compiled again per problem.
    observer?.problem(ctx, mapEveryString(doc, mask) as ProblemDocument, stack);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const page = config.debug ? debugPage(ctx, links, stack) : PLAIN_PAGE;
    const representation = representationFor(ctx);
    const { contentType, body } = renderProblem(doc, representation, page, plainPages);
    const headers = problemHeaders(problem, ctx.receivedAt, notFoundPolicy, expiresDate);
    headers.push('content-type', contentType);
    addRouteHeaders(headers, problemVary(problem, representation, config.debug), routeHeaders);
    sendBody(res, problem.status, headers, body, ctx.receivedAt, responseDate);
  };
}

/** Writes one log line of a request with its id (both masked already). */
type WriteLine = (ctx: RequestContext, requestId: string, channel: string, level: LogLevel, line: string) => void;

/** The `request.*` line and, for a typed problem, the incident line, secrets masked, each with the request's id. */
function logProblem(
  writeLine: WriteLine, mask: (text: string) => string, requestId: string, ctx: RequestContext, problem: ProblemAnswer, doc: ProblemDocument, cause: unknown,
): void {
  if (problem.code === 'internal_error') {
    const stack = cause instanceof Error && cause.stack ? ` ${cause.stack}` : '';
    const name = cause instanceof Error ? cause.name : 'Error';
    writeLine(ctx, requestId, 'request', 'CRITICAL', mask(`Uncaught ${name}: "${problem.message}"${stack}`));
  } else {
    // Any other problem's detail is its message.
    writeLine(ctx, requestId, 'request', requestLineLevel(problem), mask(doc.detail));
  }
  if (doc.type !== 'about:blank') {
    writeLine(ctx, requestId, 'app', 'ERROR', mask(`Incident: - Type: ${doc.type} - Cause: ${problem.status} - Title: ${problemTitle(problem.status)}`));
  }
}

/** What a debug page shows of the request, and links to (its profile, the stack's sources). */
function debugPage(ctx: RequestContext, links: ProblemPageLinks | undefined, stack: string | undefined): ProblemPageContext {
  return { debug: true, method: ctx.method, target: ctx.target, clientIp: ctx.clientIp, profilerLink: links?.profile, stack, sourceLink: links?.source };
}

/** A 5xx is CRITICAL unless its owner reports the fault itself; anything else is an ERROR. */
function requestLineLevel(problem: ProblemAnswer): LogLevel {
  if (problem.status < 500) return 'ERROR';
  return problem.reportedElsewhere ? 'WARNING' : 'CRITICAL';
}

/** Adds the route's own headers to a problem's, a `vary` of the route's joined to the problem's in one line. */
function addRouteHeaders(headers: HeaderList, vary: string, routeHeaders: HeaderList | undefined): void {
  let varies = vary;
  for (let i = 0; routeHeaders !== undefined && i < routeHeaders.length; i += 2) {
    const name = routeHeaders[i]!;
    if (name === 'vary') varies = `${routeHeaders[i + 1]!}, ${varies}`;
    else headers.push(name, routeHeaders[i + 1]!);
  }
  headers.push('vary', varies);
}

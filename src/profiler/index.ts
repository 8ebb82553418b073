/**
 * The dev profiler (APP_ENV=dev and APP_DEBUG=1 only): a profile per request, kept in memory,
 * and the `/_profiler/…` pages. Elsewhere none of this is created and no profiler code runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FALLBACK_CONTROLLER, type AppObserver } from '../app/index.js';
import { type Config, createSecretMasker, mapEveryString } from '../config/index.js';
import type { RequestContext } from '../http/index.js';
import type { ProblemDocument, SourceLink } from '../core/index.js';
import { MAX_PROFILE_BYTES, ProfileBudget, RESPONSE_HEADERS_BYTES, notKeptMarker } from './kept.js';
import { linkToPrimary, type PrimaryLink } from './primary-link.js';
import { ProfileStore, newToken, type LogRecord, type Profile } from './profile.js';
import { createProfilerRoutes, PROFILER_PREFIX, sourceLinkFor } from './routes.js';
import { createStackMapper } from './source-maps.js';

export { FileCannotBeOpened, PROFILER_PREFIX, TokenNotFound } from './routes.js';

/** The dev profiler: an observer of the app, with pages of its own. */
export type Profiler = AppObserver;

/** A profile being recorded: what it may still keep, and how many log lines it could not. */
interface Recording {
  readonly profile: Profile;
  readonly budget: ProfileBudget;
  logsNotKept: number;
}

/** The profiles of a request in progress: its own and, when the fallback answers it, the fallback's. */
interface RequestRecordings {
  main: Recording;
  fallback?: Recording;
}

export function createProfiler(config: Config, clock: () => number): Profiler {
  const profiles = new ProfileStore(config.profilerMax);
  // With several workers (WORKERS > 1), finished profiles go to the cluster primary, which any
  // worker asks for tokens it does not hold itself (README, "Several processes": the profiler stays whole).
  const primary = linkToPrimary();
  const sourceLink = sourceLinkFor(config.projectDir);
  return new RequestProfiler({
    routes: createProfilerRoutes({ config, profiles, primary, sourceLink }),
    profiles,
    primary,
    sourceLink,
    mask: createSecretMasker(config),
    mapStack: createStackMapper(),
    clock,
  });
}

/** What a RequestProfiler records with and into. */
interface RequestProfilerParts {
  readonly routes: Profiler['routes'];
  readonly profiles: ProfileStore;
  readonly primary: PrimaryLink | undefined;
  readonly sourceLink: SourceLink;
  readonly mask: (text: string) => string;
  readonly mapStack: (stack: string) => string;
  readonly clock: () => number;
}

/** The observer the app calls at each step of a request: each step is recorded in the request's profiles. */
class RequestProfiler implements Profiler {
  readonly routes: Profiler['routes'];
  readonly #parts: RequestProfilerParts;
  readonly #recordingsOf = new WeakMap<RequestContext, RequestRecordings>();

  constructor(parts: RequestProfilerParts) {
    this.routes = parts.routes;
    this.#parts = parts;
  }

  began(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): void {
    // The profiler's own pages are not profiled (an unmatched path under them is: see routed).
    if (!ctx.rawPath.startsWith(PROFILER_PREFIX)) this.#recordingsOf.set(ctx, { main: this.#beginMain(ctx, req, res) });
  }

  routed(ctx: RequestContext, res: ServerResponse, controller: string | undefined): void {
    let recordings = this.#recordingsOf.get(ctx);
    if (controller === FALLBACK_CONTROLLER && !recordings?.fallback) {
      // Unmatched requests are the fallback handler's, as a sub-request with a profile of its own.
      recordings ??= { main: this.#beginMain(ctx, res.req, res) };
      recordings.fallback = this.#beginFallback(recordings.main.profile, ctx, res);
      this.#recordingsOf.set(ctx, recordings);
    }
    if (!recordings) return;
    const attributes = this.#maskedAttributes({ ...ctx.attributes, _controller: controller });
    recordings.main.profile.attributes = attributes;
    if (recordings.fallback) recordings.fallback.profile.attributes = attributes;
  }

  logged(ctx: RequestContext, channel: string, level: LogRecord['level'], message: string): void {
    const recordings = this.#recordingsOf.get(ctx);
    if (!recordings) return;
    const at = this.#parts.clock();
    keepLog(recordings.main, at, channel, level, message);
    if (recordings.fallback) keepLog(recordings.fallback, at, channel, level, message);
  }

  problem(ctx: RequestContext, doc: ProblemDocument, stack: string | undefined): void {
    const recordings = this.#recordingsOf.get(ctx);
    if (!recordings) return;
    keepProblem(recordings.main, doc, stack);
    if (recordings.fallback) keepProblem(recordings.fallback, doc, stack);
  }

  pageLinks(ctx: RequestContext): ReturnType<Profiler['pageLinks']> {
    const main = this.#recordingsOf.get(ctx)?.main;
    const { sourceLink, mapStack } = this.#parts;
    return { profile: main ? linkFor(ctx, main.profile.token) : undefined, source: sourceLink, mapStack };
  }

  /** Starts the main profile of a request and sets its debug headers. */
  #beginMain(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Recording {
    const main = this.#create(ctx, req.headers, undefined);
    res.setHeader('x-debug-token', main.profile.token);
    res.setHeader('x-debug-token-link', linkFor(ctx, main.profile.token));
    this.#finishOn(res, main, ctx.receivedAt);
    return main;
  }

  /** Starts the fallback handler's sub-request profile under `main`. */
  #beginFallback(main: Profile, ctx: RequestContext, res: ServerResponse): Recording {
    const sub = this.#create(ctx, {}, main.token);
    main.children.push(sub.profile.token);
    res.setHeader('x-previous-debug-token', sub.profile.token);
    this.#finishOn(res, sub, this.#parts.clock());
    return sub;
  }

  #create(ctx: RequestContext, headers: IncomingMessage['headers'], parentToken: string | undefined): Recording {
    const { profiles, mask } = this.#parts;
    const budget = new ProfileBudget(mask, MAX_PROFILE_BYTES - RESPONSE_HEADERS_BYTES);
    const token = newToken((t) => profiles.has(t));
    // A copy, refreshed when routing decides (the zone) and who answers (`_controller`).
    const profile = newProfile(token, parentToken, ctx, headers, budget, this.#maskedAttributes({ ...ctx.attributes }));
    profiles.add(profile);
    return { profile, budget, logsNotKept: 0 };
  }

  /** Completes the profile when the response closes, and hands it to the primary if there is one. */
  #finishOn(res: ServerResponse, { profile }: Recording, startedAt: number): void {
    const { clock, mask, primary } = this.#parts;
    res.once('close', () => {
      profile.status = res.headersSent ? res.statusCode : undefined;
      profile.durationMs = clock() - startedAt;
      profile.responseHeaders = new ProfileBudget(mask, RESPONSE_HEADERS_BYTES).headers(res.getHeaders());
      primary?.keep(profile);
    });
  }

  /** A copy of attributes, the service's own bounded values (route ids, Node's methods): masked, not charged. */
  #maskedAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
    return mapEveryString(attributes, this.#parts.mask) as Record<string, unknown>;
  }
}

/** A new profile of a request, its client's texts charged to `budget`; the response's fields are filled in later. */
function newProfile(
  token: string,
  parentToken: string | undefined,
  ctx: RequestContext,
  headers: IncomingMessage['headers'],
  budget: ProfileBudget,
  attributes: Record<string, unknown>,
): Profile {
  return {
    token,
    parentToken,
    children: [],
    time: ctx.receivedAt,
    requestId: ctx.requestId,
    method: budget.text(ctx.method),
    originalMethod: ctx.originalMethod,
    rawPath: budget.text(ctx.rawPath),
    target: budget.text(ctx.target),
    clientIp: ctx.clientIp,
    requestHeaders: budget.headers(headers),
    responseHeaders: [],
    attributes,
    status: undefined,
    durationMs: undefined,
    logs: [],
    problem: undefined,
    stack: undefined,
  };
}

/** Keeps a log line, or once the budget is spent, counts it in one marker line at the end. */
function keepLog(recording: Recording, at: number, channel: string, level: LogRecord['level'], message: string): void {
  const { profile, budget } = recording;
  if (!budget.spent) {
    profile.logs.push({ at, channel, level, message: budget.text(message) });
    return;
  }
  if (recording.logsNotKept > 0) profile.logs.pop();
  recording.logsNotKept++;
  profile.logs.push({ at, channel: 'profiler', level: 'NOTICE', message: notKeptMarker(recording.logsNotKept) });
}

/** Keeps the problem a request was answered with. */
function keepProblem({ profile, budget }: Recording, doc: ProblemDocument, stack: string | undefined): void {
  // Every member at any depth (a 422's `errors[].pointer`) is masked and charged.
  profile.problem = budget.value(doc) as ProblemDocument;
  profile.stack = stack === undefined ? undefined : budget.text(stack);
}

const linkFor = (ctx: RequestContext, token: string) => `${ctx.baseUrl}${PROFILER_PREFIX}${token}`;

export { ProfileHub } from './hub.js';
export { type PrimaryMessage } from './protocol.js';

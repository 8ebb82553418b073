/**
 * The dev profiler (APP_ENV=dev and APP_DEBUG=1 only): a profile per request, kept in memory,
 * and the `/_profiler/…` pages. Elsewhere none of this is created and no profiler code runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FALLBACK_CONTROLLER, type AppObserver } from '../app/index.js';
import { type Config, createSecretMasker, mapEveryString } from '../config/index.js';
import type { RequestContext } from '../http/index.js';
import type { ProblemDocument } from '../core/index.js';
import { MAX_PROFILE_BYTES, ProfileBudget, RESPONSE_HEADERS_BYTES, notKeptMarker } from './kept.js';
import { linkToPrimary } from './primary-link.js';
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

export function createProfiler(config: Config, clock: () => number): Profiler {
  const profiles = new ProfileStore(config.profilerMax);
  // With several workers (WORKERS > 1), finished profiles go to the cluster primary, which any
  // worker asks for tokens it does not hold itself (README, "Several processes": the profiler stays whole).
  const primary = linkToPrimary();
  const mask = createSecretMasker(config);
  const sourceLink = sourceLinkFor(config.projectDir);
  const mapStack = createStackMapper();
  /** The profiles of a request in progress: its own and, when the fallback answers it, the fallback's. */
  const profilesOf = new WeakMap<RequestContext, { main: Recording; fallback?: Recording }>();

  function create(ctx: RequestContext, headers: IncomingMessage['headers'], parentToken: string | undefined): Recording {
    const budget = new ProfileBudget(mask, MAX_PROFILE_BYTES - RESPONSE_HEADERS_BYTES);
    const profile: Profile = {
      token: newToken((t) => profiles.has(t)),
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
      // A copy, refreshed when routing decides (the zone) and who answers (`_controller`).
      attributes: maskedAttributes({ ...ctx.attributes }),
      status: undefined,
      durationMs: undefined,
      logs: [],
      problem: undefined,
      stack: undefined,
    };
    profiles.add(profile);
    return { profile, budget, logsNotKept: 0 };
  }

  /** A copy of attributes, the service's own bounded values (route ids, Node's methods): masked, not charged. */
  const maskedAttributes = (attributes: Record<string, unknown>) => mapEveryString(attributes, mask) as Record<string, unknown>;

  function finishOn(res: ServerResponse, { profile }: Recording, startedAt: number): void {
    res.once('close', () => {
      profile.status = res.headersSent ? res.statusCode : undefined;
      profile.durationMs = clock() - startedAt;
      profile.responseHeaders = new ProfileBudget(mask, RESPONSE_HEADERS_BYTES).headers(res.getHeaders());
      primary?.keep(profile);
    });
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

  const linkFor = (ctx: RequestContext, token: string) => `${ctx.baseUrl}${PROFILER_PREFIX}${token}`;


  /** Starts the main profile of a request and sets its debug headers. */
  function beginMain(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Recording {
    const main = create(ctx, req.headers, undefined);
    res.setHeader('x-debug-token', main.profile.token);
    res.setHeader('x-debug-token-link', linkFor(ctx, main.profile.token));
    finishOn(res, main, ctx.receivedAt);
    return main;
  }

  /** Starts the fallback handler's sub-request profile under `main`. */
  function beginFallback(main: Profile, ctx: RequestContext, res: ServerResponse): Recording {
    const sub = create(ctx, {}, main.token);
    main.children.push(sub.profile.token);
    res.setHeader('x-previous-debug-token', sub.profile.token);
    finishOn(res, sub, clock());
    return sub;
  }

  return {
    routes: createProfilerRoutes({ config, profiles, primary, sourceLink }),
    began(ctx, req, res) {
      // The profiler's own pages are not profiled (an unmatched path under them is: see routed).
      if (!ctx.rawPath.startsWith(PROFILER_PREFIX)) profilesOf.set(ctx, { main: beginMain(ctx, req, res) });
    },
    routed(ctx, res, controller) {
      let profiles = profilesOf.get(ctx);
      if (controller === FALLBACK_CONTROLLER && !profiles?.fallback) {
        // Unmatched requests are the fallback handler's, as a sub-request with a profile of its own.
        profiles ??= { main: beginMain(ctx, res.req, res) };
        profiles.fallback = beginFallback(profiles.main.profile, ctx, res);
        profilesOf.set(ctx, profiles);
      }
      if (!profiles) return;
      const attributes = maskedAttributes({ ...ctx.attributes, _controller: controller });
      profiles.main.profile.attributes = attributes;
      if (profiles.fallback) profiles.fallback.profile.attributes = attributes;
    },
    logged(ctx, channel, level, message) {
      const profiles = profilesOf.get(ctx);
      if (!profiles) return;
      const at = clock();
      keepLog(profiles.main, at, channel, level, message);
      if (profiles.fallback) keepLog(profiles.fallback, at, channel, level, message);
    },
    problem(ctx, doc, stack) {
      const profiles = profilesOf.get(ctx);
      if (!profiles) return;
      for (const recording of [profiles.main, profiles.fallback]) {
        if (!recording) continue;
        // Every member at any depth (a 422's `errors[].pointer`) is masked and charged.
        recording.profile.problem = recording.budget.value(doc) as ProblemDocument;
        recording.profile.stack = stack === undefined ? undefined : recording.budget.text(stack);
      }
    },
    pageLinks(ctx) {
      const main = profilesOf.get(ctx)?.main;
      return { profile: main ? linkFor(ctx, main.profile.token) : undefined, source: sourceLink, mapStack };
    },
  };
}
export { ProfileHub } from './hub.js';
export { type PrimaryMessage } from './protocol.js';

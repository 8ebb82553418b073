/**
 * The dev profiler (APP_ENV=dev and APP_DEBUG=1 only): a profile per request, kept in memory,
 * and the `/_profiler/…` pages. Elsewhere none of this is created and no profiler code runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FALLBACK_CONTROLLER, type AppObserver } from '../app-observer.js';
import type { Config } from '../config.js';
import type { RequestContext } from '../http/request.js';
import type { ProblemDocument } from '../problem.js';
import { secretValuesOf } from '../secrets.js';
import { linkToPrimary } from './primary-link.js';
import { ProfileStore, keptText, maskHeaders, newToken, type Profile } from './profile.js';
import { createProfilerRoutes, PROFILER_PREFIX, sourceLinkFor } from './routes.js';
import { mapStackToSources } from './source-maps.js';

export { FileCannotBeOpened, PROFILER_PREFIX, TokenNotFound } from './routes.js';

/** The dev profiler: an observer of the app, with pages of its own. */
export type Profiler = AppObserver;

export function createProfiler(config: Config, clock: () => number): Profiler {
  const profiles = new ProfileStore(config.profilerMax);
  // With several workers (WORKERS > 1), finished profiles go to the cluster primary, which any
  // worker asks for tokens it does not hold itself (SPEC 12: the profiler stays whole).
  const primary = linkToPrimary();
  const secretValues = secretValuesOf(config);
  const sourceLink = sourceLinkFor(config.projectDir);
  /** The profiles of a request in progress: its own and, when the fallback answers it, the fallback's. */
  const profilesOf = new WeakMap<RequestContext, { main: Profile; fallback?: Profile }>();

  function create(ctx: RequestContext, headers: IncomingMessage['headers'], parentToken: string | undefined): Profile {
    const profile: Profile = {
      token: newToken((t) => profiles.has(t)),
      parentToken,
      children: [],
      time: ctx.receivedAt,
      method: ctx.method,
      originalMethod: ctx.originalMethod,
      rawPath: keptText(ctx.rawPath, secretValues),
      target: keptText(ctx.target, secretValues),
      clientIp: ctx.clientIp,
      requestHeaders: maskHeaders(headers, secretValues),
      responseHeaders: [],
      // A copy, refreshed when routing decides (the zone) and who answers (`_controller`).
      attributes: { ...ctx.attributes },
      status: undefined,
      durationMs: undefined,
      logs: [],
      problem: undefined,
      stack: undefined,
    };
    profiles.add(profile);
    return profile;
  }

  function finishOn(res: ServerResponse, profile: Profile, startedAt: number): void {
    res.once('close', () => {
      profile.status = res.headersSent ? res.statusCode : undefined;
      profile.durationMs = clock() - startedAt;
      profile.responseHeaders = maskHeaders(res.getHeaders(), secretValues);
      primary?.keep(profile);
    });
  }

  const linkFor = (ctx: RequestContext, token: string) => `${ctx.baseUrl}${PROFILER_PREFIX}${token}`;


  /** Starts the main profile of a request and sets its debug headers. */
  function beginMain(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): Profile {
    const profile = create(ctx, req.headers, undefined);
    res.setHeader('x-debug-token', profile.token);
    res.setHeader('x-debug-token-link', linkFor(ctx, profile.token));
    finishOn(res, profile, ctx.receivedAt);
    return profile;
  }

  /** Starts the fallback handler's sub-request profile under `main`. */
  function beginFallback(main: Profile, ctx: RequestContext, res: ServerResponse): Profile {
    const sub = create(ctx, {}, main.token);
    main.children.push(sub.token);
    res.setHeader('x-previous-debug-token', sub.token);
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
        profiles.fallback = beginFallback(profiles.main, ctx, res);
        profilesOf.set(ctx, profiles);
      }
      if (!profiles) return;
      for (const profile of [profiles.main, profiles.fallback]) {
        if (profile) profile.attributes = { ...ctx.attributes, _controller: controller };
      }
    },
    logged(ctx, channel, level, message) {
      const profiles = profilesOf.get(ctx);
      const record = { at: clock(), channel, level, message: keptText(message, secretValues) };
      profiles?.main.logs.push(record);
      profiles?.fallback?.logs.push(record);
    },
    problem(ctx, doc, stack) {
      const profiles = profilesOf.get(ctx);
      if (!profiles) return;
      const masked = Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, typeof v === 'string' ? keptText(v, secretValues) : v])) as ProblemDocument;
      const kept = stack === undefined ? undefined : keptText(stack, secretValues);
      for (const profile of [profiles.main, profiles.fallback]) {
        if (!profile) continue;
        profile.problem = masked;
        profile.stack = kept;
      }
    },
    pageLinks(ctx) {
      const main = profilesOf.get(ctx)?.main;
      return { profile: main ? linkFor(ctx, main.token) : undefined, source: sourceLink, mapStack: mapStackToSources };
    },
  };
}

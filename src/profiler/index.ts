/**
 * The dev profiler (APP_ENV=dev and APP_DEBUG=1 only): a profile per request, kept in memory,
 * and the `/_profiler/…` pages. Elsewhere none of this is created and no profiler code runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FALLBACK_CONTROLLER, type AppObserver } from '../app/index.js';
import { type Config, createSecretMasker } from '../config/index.js';
import type { RequestContext } from '../http/index.js';
import type { ProblemDocument, SourceLink } from '../core/index.js';
import { linkToPrimary, type PrimaryLink } from './primary-link.js';
import { ProfileStore, newToken, type LogRecord, type Profile } from './profile.js';
import { ProfileRecording } from './recording.js';
import { createProfilerRoutes, PROFILER_PREFIX, sourceLinkFor } from './routes.js';
import { createStackMapper } from './source-maps.js';

export { FileCannotBeOpened, PROFILER_PREFIX, TokenNotFound } from './routes.js';

/** The dev profiler: an observer of the app, with pages of its own. */
export type Profiler = AppObserver;

/** The profiles of a request in progress: its own and, when the fallback answers it, the fallback's. */
interface RequestRecordings {
  main: ProfileRecording;
  fallback?: ProfileRecording;
}

export function createProfiler(config: Config, clock: () => number): Profiler {
  const profiles = new ProfileStore(config.profilerMax);
  // With several workers (WORKERS > 1), finished profiles go to the cluster primary, which any
  // worker asks for tokens it does not hold itself (docs/deployment.md, "Several processes": the profiler stays whole).
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
    const attributes = { ...ctx.attributes, _controller: controller };
    recordings.main.keepAttributes(attributes);
    recordings.fallback?.keepAttributes(attributes);
  }

  logged(ctx: RequestContext, channel: string, level: LogRecord['level'], message: string): void {
    const recordings = this.#recordingsOf.get(ctx);
    if (!recordings) return;
    const at = this.#parts.clock();
    recordings.main.keepLog(at, channel, level, message);
    recordings.fallback?.keepLog(at, channel, level, message);
  }

  problem(ctx: RequestContext, doc: ProblemDocument, stack: string | undefined): void {
    const recordings = this.#recordingsOf.get(ctx);
    if (!recordings) return;
    recordings.main.keepProblem(doc, stack);
    recordings.fallback?.keepProblem(doc, stack);
  }

  pageLinks(ctx: RequestContext): ReturnType<Profiler['pageLinks']> {
    const main = this.#recordingsOf.get(ctx)?.main;
    const { sourceLink, mapStack } = this.#parts;
    return { profile: main ? linkFor(ctx, main.profile.token) : undefined, source: sourceLink, mapStack };
  }

  /** Starts the main profile of a request and sets its debug headers. */
  #beginMain(ctx: RequestContext, req: IncomingMessage, res: ServerResponse): ProfileRecording {
    const main = this.#create(ctx, req.headers, undefined);
    res.setHeader('x-debug-token', main.profile.token);
    res.setHeader('x-debug-token-link', linkFor(ctx, main.profile.token));
    this.#finishOn(res, main, ctx.receivedAt);
    return main;
  }

  /** Starts the fallback handler's sub-request profile under `main`. */
  #beginFallback(main: Profile, ctx: RequestContext, res: ServerResponse): ProfileRecording {
    const sub = this.#create(ctx, {}, main.token);
    main.children.push(sub.profile.token);
    res.setHeader('x-previous-debug-token', sub.profile.token);
    this.#finishOn(res, sub, this.#parts.clock());
    return sub;
  }

  #create(ctx: RequestContext, headers: IncomingMessage['headers'], parentToken: string | undefined): ProfileRecording {
    const { profiles, mask } = this.#parts;
    const token = newToken((t) => profiles.has(t));
    const recording = new ProfileRecording({ token, parentToken, ctx, headers, mask });
    profiles.add(recording.profile);
    return recording;
  }

  /** Completes the profile when the response closes, and hands it to the primary if there is one. */
  #finishOn(res: ServerResponse, recording: ProfileRecording, startedAt: number): void {
    const { clock, primary } = this.#parts;
    res.once('close', () => {
      recording.finish(res.headersSent ? res.statusCode : undefined, clock() - startedAt, res.getHeaders());
      primary?.keep(recording.profile);
    });
  }
}

const linkFor = (ctx: RequestContext, token: string) => `${ctx.baseUrl}${PROFILER_PREFIX}${token}`;

export { ProfileHub } from './hub.js';
export { type PrimaryMessage } from './protocol.js';

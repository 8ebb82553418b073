/**
 * The dev profiler (APP_ENV=dev and APP_DEBUG=1 only): a profile per request, kept in memory,
 * and the `/_profiler/…` pages. Elsewhere none of this is created and no profiler code runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, relative } from 'node:path';
import { FALLBACK_CONTROLLER, type AppObserver } from '../app-observer.js';
import type { Handler } from '../http/handler.js';
import { SECRET_SETTINGS, type Config } from '../config.js';
import { secretValuesOf } from '../secrets.js';
import { Problem, type ProblemDocument } from '../problem.js';
import type { RequestContext } from '../http/request.js';
import { sendBody } from '../http/response.js';
import type { Route } from '../router.js';
import { isInside } from '../util/paths.js';
import { readProjectSource } from './open.js';
import { mapStackToSources } from './source-maps.js';
import {
  PANELS,
  PROFILER_CSS,
  renderExceptionPage,
  renderProfilePage,
  renderSearchPage,
  renderSourcePage,
  type Panel,
} from './pages.js';
import { MASK } from '../secrets.js';
import { linkToPrimary } from './primary-link.js';
import { ProfileStore, keptText, maskHeaders, newestOf, newToken, type Profile } from './profile.js';
import { SEARCH_LIMIT, isToken } from './protocol.js';

export const PROFILER_PREFIX = '/_profiler/';

/** An unknown or expired profile token. */
export class TokenNotFound extends Problem {
  constructor(token: string) {
    super('token_not_found', 404, `Token "${token}" not found.`);
  }
}

/** `/_profiler/open` asked for a file it must not or cannot show. */
export class FileCannotBeOpened extends Problem {
  constructor(file: string) {
    super('file_cannot_be_opened', 404, `The file "${file}" cannot be opened.`);
  }
}

/** The dev profiler: an observer of the app, with pages of its own. */
export type Profiler = AppObserver;

export function createProfiler(config: Config, clock: () => number): Profiler {
  const profiles = new ProfileStore(config.profilerMax);
  // With several workers (WORKERS > 1), finished profiles go to the cluster primary, which any
  // worker asks for tokens it does not hold itself (SPEC 12: the profiler stays whole).
  const primary = linkToPrimary();
  const secretValues = secretValuesOf(config);
  const settings = describeSettings(config);
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

  const sourceRoot = join(config.projectDir, 'src');
  /** `/_profiler/open?file=src/app.ts&line=12` for a frame in the project's sources. */
  const sourceLink = (file: string, line: number): string | undefined =>
    isInside(sourceRoot, file) ? `${PROFILER_PREFIX}open?${new URLSearchParams({ file: relative(config.projectDir, file), line: String(line) })}` : undefined;

  const linkFor = (ctx: RequestContext, token: string) => `${ctx.baseUrl}${PROFILER_PREFIX}${token}`;

  const profilePage: Handler = (ctx, _req, res, { params }) =>
    withProfile(params.token!, (profile) => {
      const panel = parsePanel(new URLSearchParams(ctx.query).get('panel'));
      sendHtml(res, renderProfilePage(profile, panel, settings, sourceLink), ctx.receivedAt);
    });

  const exceptionPage: Handler = (ctx, _req, res, { params }) =>
    withProfile(params.token!, (profile) => sendHtml(res, renderExceptionPage(profile, sourceLink), ctx.receivedAt));

  const stylesheet: Handler = (ctx, _req, res, { params }) =>
    withProfile(params.token!, () => {
      sendBody(res, 200, { 'content-type': 'text/css; charset=UTF-8', 'cache-control': 'no-cache, private' }, PROFILER_CSS, ctx.receivedAt);
    });

  const searchBar: Handler = (ctx, _req, res) => {
    const query = new URLSearchParams(ctx.query);
    const status = Number(query.get('status'));
    const criteria = {
      method: query.get('method')?.toUpperCase() || undefined,
      path: query.get('path') || undefined,
      status: Number.isInteger(status) && status > 0 ? status : undefined,
      ip: query.get('ip') || undefined,
    };
    const panel = parsePanel(query.get('panel'));
    const local = profiles.search(criteria, SEARCH_LIMIT);
    if (!primary) return sendHtml(res, renderSearchPage(criteria, panel, local), ctx.receivedAt);
    // Requests in flight here are not at the primary yet; the primary has every worker's others.
    return primary.search(criteria, SEARCH_LIMIT).then((shared = []) => {
      sendHtml(res, renderSearchPage(criteria, panel, newestOf([local, shared], SEARCH_LIMIT)), ctx.receivedAt);
    });
  };

  const openFile: Handler = async (ctx, _req, res) => {
    const query = new URLSearchParams(ctx.query);
    const file = query.get('file') ?? '';
    const source = await readProjectSource(config.projectDir, file);
    if (!source) throw new FileCannotBeOpened(file);
    const line = Number(query.get('line'));
    sendHtml(res, renderSourcePage(source.path, source.text, Number.isInteger(line) && line > 0 ? line : undefined), ctx.receivedAt);
  };

  /** Shows the profile of `token`: at once when this process holds it, else once the primary answers. */
  function withProfile(token: string, show: (profile: Profile) => void): void | Promise<void> {
    const local = profiles.get(token);
    if (local) return show(local);
    if (!primary || !isToken(token)) throw new TokenNotFound(token);
    return primary.find(token).then((shared) => {
      if (!shared) throw new TokenNotFound(token);
      show(shared);
    });
  }

  const route = (id: string, path: string, handler: Handler): Route<Handler> => ({ id, path, methods: ['GET'], handler });

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
    routes: [
      route('profiler.search_bar', '/_profiler/search_bar', searchBar),
      route('profiler.open', '/_profiler/open', openFile),
      route('profiler.exception_css', '/_profiler/{token}/exception.css', stylesheet),
      route('profiler.exception', '/_profiler/{token}/exception', exceptionPage),
      route('profiler.profile', '/_profiler/{token}', profilePage),
    ],
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

function parsePanel(value: string | null): Panel {
  return (PANELS as readonly string[]).includes(value ?? '') ? (value as Panel) : 'request';
}

function sendHtml(res: ServerResponse, html: string, now: number): void {
  sendBody(res, 200, { 'content-type': 'text/html; charset=UTF-8', 'cache-control': 'no-cache, private', 'x-robots-tag': 'none' }, html, now);
}

/** The settings shown on the config panel: never a secret's value. */
function describeSettings(config: Config): (readonly [string, string])[] {
  const ns = config.namespaces;
  const namespace = (n: { origin: string | undefined; path: string }) => (n.origin ?? '') + n.path;
  return [
    ['APP_ENV', config.appEnv],
    ['APP_DEBUG', config.debug ? '1' : '0'],
    ['HOST', config.host],
    ['PORT', String(config.port)],
    ['BASE_URL', config.baseUrl ?? '(per request)'],
    ['DOC_BASE', namespace(ns.doc)],
    ['PROBLEM_BASE', namespace(ns.problem)],
    ['SCHEMA_BASE', namespace(ns.schema)],
    ['SERVICE_BASE', namespace(ns.service)],
    ['STATIC_BASE', namespace(ns.static)],
    ['ADMIN_BASE', namespace(ns.admin)],
    ['PUBLIC_DIR', config.publicDir],
    ['VAR_DIR', config.varDir],
    ['LOG_DIR', config.logDir],
    ['LOG_TIMEZONE', config.logTimeZone],
    ['LOG_MAX_FILES', String(config.logMaxFiles)],
    ['NOT_FOUND_CACHE_CONTROL', config.notFoundCacheControl],
    ['POSTER_API', config.posterApi ? '1' : '0'],
    ['JWT_SECRET_KEY', config.jwt.secretKeyPath],
    ['JWT_PUBLIC_KEY', config.jwt.publicKeyPath],
    ['JWT_TOKEN_TTL', String(config.jwt.tokenTtl)],
    ['JWT_CLOCK_SKEW', String(config.jwt.clockSkew)],
    ['BROKER_URL', config.brokerUrl.replace(/^(amqp:\/\/[^:@]*):[^@]*@/, `$1:${MASK}@`)],
    ['PROFILER_MAX', String(config.profilerMax)],
    ['WORKERS', String(config.workers)],
    ...SECRET_SETTINGS.map((name): [string, string] => [name, config.secrets[name] === '' ? '(empty)' : MASK]),
  ];
}

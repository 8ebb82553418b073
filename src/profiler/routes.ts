/**
 * The profiler's pages, all GET: a profile and its panels, the exception page and stylesheet,
 * the search bar, and the source viewer. With several workers, a token this process does not
 * hold is asked of the cluster primary.
 */
import type { ServerResponse } from 'node:http';
import { join, relative } from 'node:path';
import { SECRET_SETTINGS, type Config, MASK, createSecretMasker, describeEndpoint } from '../config/index.js';
import { type SourceLink, Problem } from '../core/index.js';
import { type Handler, type ServiceRoute, type RequestContext, sendBody } from '../http/index.js';
import { isInside } from '../util/paths.js';
import { readProjectSource } from './open.js';
import {
  PANELS,
  PROFILER_CSS,
  renderExceptionPage,
  renderProfilePage,
  renderSearchPage,
  renderSourcePage,
  type Panel,
  type ProfileView,
  type SearchCriteria,
} from './pages.js';
import type { PrimaryLink } from './primary-link.js';
import { newestOf, type Profile, type ProfileStore } from './profile.js';
import { SEARCH_LIMIT, isToken } from './protocol.js';

export const PROFILER_PREFIX = '/_profiler/';

/** An unknown or expired profile token. */
export class TokenNotFound extends Problem {
  constructor(token: string) {
    super('token_not_found', `Token "${token}" not found.`);
  }
}

/** `/_profiler/open` asked for a file it must not or cannot show. */
export class FileCannotBeOpened extends Problem {
  constructor(file: string) {
    super('file_cannot_be_opened', `The file "${file}" cannot be opened.`);
  }
}

/**
 * `/_profiler/open?file=src/app.ts&line=12#L12` for a stack frame in the project's sources: the
 * fragment names the line's element, so the browser opens the page at that line.
 */
export function sourceLinkFor(projectDir: string): SourceLink {
  const sourceRoot = join(projectDir, 'src');
  return (file, line) =>
    isInside(sourceRoot, file)
      ? `${PROFILER_PREFIX}open?${new URLSearchParams({ file: relative(projectDir, file), line: String(line) })}#L${line}`
      : undefined;
}

/** Symfony's alias of the newest profile's token. */
export const LATEST_TOKEN = 'latest';

export interface ProfilerRoutesOptions {
  readonly config: Config;
  readonly profiles: ProfileStore;
  readonly primary: PrimaryLink | undefined;
  readonly sourceLink: SourceLink;
}

export function createProfilerRoutes({ config, profiles, primary, sourceLink }: ProfilerRoutesOptions): ServiceRoute[] {
  // A secret's value inside another setting (a user name, a path) is masked too.
  const mask = createSecretMasker(config);
  const settings = describeSettings(config).map(([name, value]) => [name, mask(value)] as const);
  const view: ProfileView = { settings, sourceLink, timeZone: config.logTimeZone };
  const finder = new ProfileFinder(profiles, primary);
  const route = (id: string, path: string, handler: Handler): ServiceRoute => ({ id, path, methods: ['GET'], handler });

  return [
    route('profiler.search_bar', '/_profiler/search_bar', searchBar(finder, config.logTimeZone)),
    route('profiler.open', '/_profiler/open', openFile(config.projectDir)),
    route('profiler.exception_css', '/_profiler/{token}/exception.css', stylesheet(finder)),
    route('profiler.exception', '/_profiler/{token}/exception', exceptionPage(finder, sourceLink)),
    route('profiler.latest', `${PROFILER_PREFIX}${LATEST_TOKEN}`, latestPage(finder, view)),
    route('profiler.profile', '/_profiler/{token}', profilePage(finder, view)),
  ];
}

/** Finds profiles in this process and, with several workers, asks the cluster primary for the others. */
class ProfileFinder {
  readonly #profiles: ProfileStore;
  readonly #primary: PrimaryLink | undefined;

  constructor(profiles: ProfileStore, primary: PrimaryLink | undefined) {
    this.#profiles = profiles;
    this.#primary = primary;
  }

  /** Shows the profile of `token`: at once when this process holds it, else once the primary answers. */
  withProfile(token: string, show: (profile: Profile) => void): void | Promise<void> {
    const local = this.#profiles.get(token);
    if (local) return show(local);
    const primary = this.#primary;
    if (!primary || !isToken(token)) throw new TokenNotFound(token);
    return primary.find(token).then((shared) => {
      if (!shared) throw new TokenNotFound(token);
      show(shared);
    });
  }

  /** The newest matching requests of this process and, with several workers, of every worker. */
  async newestProfiles(criteria: SearchCriteria, limit: number): Promise<Profile[]> {
    const local = this.#profiles.search(criteria, limit);
    if (!this.#primary) return local;
    // Requests in flight here are not at the primary yet; the primary has every worker's others.
    return newestOf([local, (await this.#primary.search(criteria, limit)) ?? []], limit);
  }
}

/** `/_profiler/{token}`: a profile, on the panel the query names. */
function profilePage(finder: ProfileFinder, view: ProfileView): Handler {
  return (ctx, _req, res, { params }) => finder.withProfile(params.token!, (profile) => showProfile(ctx, res, profile, view));
}

/**
 * `/_profiler/latest`: the newest request's profile, of every worker, shown as its own token
 * would show it. The profiler's pages are not profiled (as Symfony disables its profiler in
 * them), so this page is never its own latest; with no profile yet, a 404 like an unknown token.
 */
function latestPage(finder: ProfileFinder, view: ProfileView): Handler {
  return (ctx, _req, res) =>
    finder.newestProfiles({}, 1).then(([latest]) => {
      if (!latest) throw new TokenNotFound(LATEST_TOKEN);
      showProfile(ctx, res, latest, view);
    });
}

function showProfile(ctx: RequestContext, res: ServerResponse, profile: Profile, view: ProfileView): void {
  const panel = parsePanel(new URLSearchParams(ctx.query).get('panel'));
  sendHtml(res, renderProfilePage(profile, panel, view), ctx.receivedAt);
}

/** `/_profiler/{token}/exception`: the exception page of a profile's problem. */
function exceptionPage(finder: ProfileFinder, sourceLink: SourceLink): Handler {
  return (ctx, _req, res, { params }) =>
    finder.withProfile(params.token!, (profile) => sendHtml(res, renderExceptionPage(profile, sourceLink), ctx.receivedAt));
}

/** `/_profiler/{token}/exception.css`: the exception page's stylesheet, for a token that exists. */
function stylesheet(finder: ProfileFinder): Handler {
  return (ctx, _req, res, { params }) =>
    finder.withProfile(params.token!, () => {
      sendBody(res, 200, ['content-type', 'text/css; charset=UTF-8', 'cache-control', 'no-cache, private'], PROFILER_CSS, ctx.receivedAt);
    });
}

/** `/_profiler/search_bar`: the newest profiles that match the query's criteria. */
function searchBar(finder: ProfileFinder, timeZone: string): Handler {
  return (ctx, _req, res) => {
    const query = new URLSearchParams(ctx.query);
    const criteria = parseCriteria(query);
    const panel = parsePanel(query.get('panel'));
    return finder.newestProfiles(criteria, SEARCH_LIMIT).then((found) => {
      sendHtml(res, renderSearchPage(criteria, panel, found, timeZone), ctx.receivedAt);
    });
  };
}

/** The search criteria of a query: an empty or unusable field is no criterion. */
function parseCriteria(query: URLSearchParams): SearchCriteria {
  const status = Number(query.get('status'));
  return {
    method: query.get('method')?.toUpperCase() || undefined,
    path: query.get('path') || undefined,
    status: Number.isInteger(status) && status > 0 ? status : undefined,
    ip: query.get('ip') || undefined,
  };
}

/** `/_profiler/open?file=…&line=…`: a file of the project's sources, at a line. */
function openFile(projectDir: string): Handler {
  return async (ctx, _req, res) => {
    const query = new URLSearchParams(ctx.query);
    const file = query.get('file') ?? '';
    const source = await readProjectSource(projectDir, file);
    if (!source) throw new FileCannotBeOpened(file);
    const line = Number(query.get('line'));
    sendHtml(res, renderSourcePage(source.path, source.text, Number.isInteger(line) && line > 0 ? line : undefined), ctx.receivedAt);
  };
}

function parsePanel(value: string | null): Panel {
  return (PANELS as readonly string[]).includes(value ?? '') ? (value as Panel) : 'request';
}

function sendHtml(res: ServerResponse, html: string, now: number): void {
  sendBody(res, 200, ['content-type', 'text/html; charset=UTF-8', 'cache-control', 'no-cache, private', 'x-robots-tag', 'none'], html, now);
}

/**
 * Every setting the service reads, as the config panel shows it: its value in effect (defaults
 * included), never a secret's value. TRUSTED_* as written; the BROKER_* parts from the AMQP URL
 * they make.
 */
function describeSettings(config: Config): (readonly [string, string])[] {
  const ns = config.namespaces;
  const namespace = (n: { origin: string | undefined; path: string }) => (n.origin ?? '') + n.path;
  const broker = new URL(config.brokerUrl);
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
    ['TRUSTED_PROXIES', config.trustedAsWritten.proxies || '(none)'],
    ['TRUSTED_HOSTS', config.trustedAsWritten.hosts || '(any)'],
    ['MAX_CONNECTIONS', String(config.maxConnections)],
    ['PUBLIC_DIR', config.publicDir],
    ['VAR_DIR', config.varDir],
    ['LOG_DIR', config.logDir],
    ['LOG_TIMEZONE', config.logTimeZone],
    ['LOG_MAX_FILES', String(config.logMaxFiles)],
    ['LOG_MAX_BYTES', String(config.logMaxBytes)],
    ['NOT_FOUND_CACHE_CONTROL', config.notFoundCacheControl],
    ['POSTER_API', config.posterApi ? '1' : '0'],
    ['POSTER_MAX_BYTES', String(config.posterMaxBytes)],
    ['POSTER_RATE_LIMIT', String(config.posterRateLimit)],
    ['REDIS_URL', config.redis === undefined ? '(none: local files)' : describeEndpoint(config.redis)],
    ['CORS_ORIGINS', corsOriginsAsWritten(config.corsOrigins)],
    ['JWT_SECRET_KEY', config.jwt.secretKeyPath],
    ['JWT_PUBLIC_KEY', config.jwt.publicKeyPath],
    ['JWT_TOKEN_TTL', String(config.jwt.tokenTtl)],
    ['JWT_CLOCK_SKEW', String(config.jwt.clockSkew)],
    ['JWT_CACHE_SIZE', String(config.jwt.cacheSize)],
    ['BROKER_HOST', broker.hostname],
    ['BROKER_PORT', broker.port],
    ['BROKER_USER', decodeURIComponent(broker.username)],
    ['BROKER_VHOST', decodeURIComponent(broker.pathname.slice(1))],
    ['PROFILER_MAX', String(config.profilerMax)],
    ['WORKERS', String(config.workers)],
    ['ACCESS_LOG', config.accessLog ? '1' : '0'],
    ['LOG_REQUEST_IDS', config.logRequestIds ? '1' : '0'],
    ['ADMIN_HOST', config.admin?.host ?? '(off)'],
    ['ADMIN_PORT', config.admin === undefined ? '(off)' : String(config.admin.port)],
    ['DRAIN_SECONDS', String(config.drainSeconds)],
    ['TLS_CERT', config.tls?.certPath ?? '(off: plain HTTP)'],
    ['TLS_KEY', config.tls?.keyPath ?? '(off: plain HTTP)'],
    ['HTTP2', config.tls === undefined ? '(off: plain HTTP)' : config.tls.http2 ? '1' : '0'],
    ['HSTS_MAX_AGE', config.tls === undefined ? '(off: plain HTTP)' : String(config.tls.hstsMaxAge)],
    ['REDIRECT_PORT', config.tls?.redirectPort === undefined ? '(off)' : String(config.tls.redirectPort)],
    ...SECRET_SETTINGS.map((name): [string, string] => [name, config.secrets[name] === '' ? '(empty)' : MASK]),
  ];
}

/** CORS_ORIGINS as the panel shows it: `(off)`, `*` or the listed origins. */
function corsOriginsAsWritten(origins: Config['corsOrigins']): string {
  if (origins.kind === 'off') return '(off)';
  return origins.kind === 'any' ? '*' : origins.origins.join(',');
}

/**
 * Problems (RFC 9457): the catalogue of every problem the service answers with, the error
 * classes of routing and of unexpected errors, type URIs, and the JSON and HTML representations
 * with the observed headers. Pure: whatever is worth keeping between answers (a parsed policy, a
 * date of this second) belongs to the responder an app creates (`problem-responder.ts`).
 */
import { STATUS_CODES } from '../util/node-http.js';
import { escapeHtml, renderDefinitions, renderPage, renderStack, type SourceLink } from './html.js';
import type { Representation } from './representation.js';

/** One line of the catalogue. */
interface CatalogueEntry {
  /** The HTTP status it answers with. */
  readonly status: number;
  /** The one class that throws it, by its `name` (as jose names its errors). */
  readonly class: string;
  /**
   * Its own type name under the problem base URL, that a client can branch on (RFC 9457
   * 3.1.1; docs/posters-and-api.md, "Problem types"); undefined keeps the observed rule, the
   * failing path's parent segment (docs/http.md, "Routing and errors").
   */
  readonly type: string | undefined;
}

/**
 * Every problem the service answers with, one line each: its stable code, its status, its class
 * and its type. One class per code; a class passes its code to `Problem`, which takes the status
 * from here, so the two cannot disagree.
 */
export const PROBLEMS = {
  // Routing and unexpected errors (here)
  route_not_found: { status: 404, class: 'RouteNotFound', type: undefined },
  method_not_allowed: { status: 405, class: 'MethodNotAllowed', type: undefined },
  internal_error: { status: 500, class: 'InternalError', type: undefined },
  // The edge (http/problems.ts, http/request-body.ts)
  invalid_method_override: { status: 400, class: 'InvalidMethodOverride', type: undefined },
  invalid_host: { status: 400, class: 'InvalidHost', type: undefined },
  host_count: { status: 400, class: 'HostCount', type: undefined },
  untrusted_host: { status: 400, class: 'UntrustedHost', type: undefined },
  invalid_request_target: { status: 400, class: 'InvalidRequestTarget', type: undefined },
  unsupported_http_version: { status: 400, class: 'UnsupportedHttpVersion', type: undefined },
  unsupported_transfer_coding: { status: 501, class: 'UnsupportedTransferCoding', type: undefined },
  payload_too_large: { status: 413, class: 'PayloadTooLarge', type: '1.0/body-too-large' },
  unsupported_media_type: { status: 415, class: 'UnsupportedMediaType', type: '1.0/unsupported-media-type' },
  invalid_json: { status: 400, class: 'InvalidJson', type: '1.0/invalid-json' },
  // Static files (static/problems.ts)
  precondition_failed: { status: 412, class: 'PreconditionFailed', type: undefined },
  range_not_satisfiable: { status: 416, class: 'RangeNotSatisfiable', type: undefined },
  static_files_busy: { status: 503, class: 'StaticFilesBusy', type: undefined },
  // The settings store (store.ts)
  store_not_writable: { status: 404, class: 'StoreNotWritable', type: undefined },
  // The dev profiler (profiler/routes.ts)
  token_not_found: { status: 404, class: 'TokenNotFound', type: undefined },
  file_cannot_be_opened: { status: 404, class: 'FileCannotBeOpened', type: undefined },
  // Bearer tokens (jwt.ts)
  unauthorized: { status: 401, class: 'Unauthorized', type: '1.0/unauthorized' },
  // Posters (poster/)
  invalid_poster_spec: { status: 422, class: 'InvalidPosterSpec', type: '1.0/invalid-poster-spec' },
  busy: { status: 503, class: 'RenderQueueFull', type: '1.0/busy' },
  insufficient_storage: { status: 507, class: 'InsufficientStorage', type: '1.0/storage-full' },
  too_many_requests: { status: 429, class: 'TooManyRequests', type: '1.0/rate-limited' },
  limits_unavailable: { status: 503, class: 'LimitsUnavailable', type: '1.0/limits-unavailable' },
} as const satisfies Readonly<Record<string, CatalogueEntry>>;

export type ProblemCode = keyof typeof PROBLEMS;

/** What a problem may carry beyond its detail. */
export interface ProblemOptions {
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extension members of the problem document. */
  readonly extensions?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
  /**
   * The fault is reported by its owner, at most once a second (an outage of Redis): each
   * answer's own line is then a WARNING, not one more CRITICAL.
   */
  readonly reportedElsewhere?: boolean;
}

/**
 * What the problem responder answers from. A thrown `Problem` is one; the router's own misses
 * (`routeNotFound`, `methodNotAllowed`), the service's most frequent answers, are plain records:
 * nothing is thrown there, so no Error and no stack is made for them.
 */
export interface ProblemAnswer {
  readonly code: ProblemCode;
  readonly status: number;
  /** The detail of the problem document. */
  readonly message: string;
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** Extension members of the problem document. */
  readonly extensions: Readonly<Record<string, unknown>>;
  /** See `ProblemOptions.reportedElsewhere`. */
  readonly reportedElsewhere: boolean;
  /** The unexpected error an `internal_error` wraps. */
  readonly cause?: unknown;
}

/** The title of a problem: its status's reason phrase. */
export function problemTitle(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}

/**
 * Base of every error a handler throws to answer with a problem; one boundary (the problem
 * responder) renders it. A real Error, as jose's errors are: built by `super()`, `message` and
 * `cause` its own non-enumerable properties, `name` its class's name, and a stable `code` that
 * says which line of `PROBLEMS` it is. The detail is its message.
 */
export abstract class Problem extends Error implements ProblemAnswer {
  readonly code: ProblemCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;
  readonly reportedElsewhere: boolean;

  constructor(code: ProblemCode, detail: string, options: ProblemOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.headers = options.headers ?? NO_HEADERS;
    this.extensions = options.extensions ?? NO_EXTENSIONS;
    this.reportedElsewhere = options.reportedElsewhere ?? false;
  }

  /** Each class is named for itself (`RouteNotFound`), as jose's errors are. */
  override get name(): string {
    return this.constructor.name;
  }

  get title(): string {
    return problemTitle(this.status);
  }
}

/** The headers and extension members of a problem without any: shared, never written. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_EXTENSIONS: Readonly<Record<string, unknown>> = Object.freeze({});

/** The observed detail of a 404: `No route found for "GET /x"`, and where the client came from. */
function notFoundDetail(method: string, rawPath: string, referer: string | undefined): string {
  const from = referer ? ` (from "${referer}")` : '';
  return `No route found for "${method} ${rawPath}"${from}`;
}

/** The observed detail of a 405, with the Allow list. */
function notAllowedDetail(method: string, rawPath: string, allowList: string): string {
  return `No route found for "${method} ${rawPath}": Method Not Allowed (Allow: ${allowList})`;
}

/** The router found no route for the path, whatever the method. */
export function routeNotFound(method: string, rawPath: string, referer: string | undefined): ProblemAnswer {
  return {
    code: 'route_not_found', status: 404, message: notFoundDetail(method, rawPath, referer),
    headers: NO_HEADERS, extensions: NO_EXTENSIONS, reportedElsewhere: false,
  };
}

/** The router found the path, not the method. */
export function methodNotAllowed(method: string, rawPath: string, allow: readonly string[]): ProblemAnswer {
  const allowList = allow.join(', ');
  return {
    code: 'method_not_allowed', status: 405, message: notAllowedDetail(method, rawPath, allowList),
    headers: { allow: allowList }, extensions: NO_EXTENSIONS, reportedElsewhere: false,
  };
}

/** A handler found no resource at the path (a static file that does not exist). */
export class RouteNotFound extends Problem {
  readonly method: string;
  readonly path: string;
  readonly referer: string | undefined;
  constructor(method: string, rawPath: string, referer: string | undefined) {
    super('route_not_found', notFoundDetail(method, rawPath, referer));
    this.method = method;
    this.path = rawPath;
    this.referer = referer;
  }
}

/** A handler that answers every method found the resource, not the method. */
export class MethodNotAllowed extends Problem {
  readonly method: string;
  readonly path: string;
  readonly allow: readonly string[];
  constructor(method: string, rawPath: string, allow: readonly string[]) {
    const allowList = allow.join(', ');
    super('method_not_allowed', notAllowedDetail(method, rawPath, allowList), { headers: { allow: allowList } });
    this.method = method;
    this.path = rawPath;
    this.allow = allow;
  }
}

/** An unexpected error, wrapped so the boundary can log its cause and hide it in prod. */
export class InternalError extends Problem {
  constructor(cause: unknown) {
    super('internal_error', cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** The RFC 9457 members plus extensions. */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly [extension: string]: unknown;
}

const GENERIC_DETAIL = 'The server could not answer this request.';

/**
 * `type` is the problem base URL plus the failing path's parent segment
 * (`/doc/1.0/lock` -> `…/problem/1.0`); a path without one (`/robots.txt`, `/`) gives `about:blank`.
 */
export function problemType(problemBaseUrl: string, rawPath: string): string {
  // The parent is what lies between the last two slashes (none before a first one).
  const last = rawPath.lastIndexOf('/');
  const before = last <= 0 ? -1 : rawPath.lastIndexOf('/', last - 1);
  const parent = before < 0 ? '' : rawPath.slice(before + 1, last);
  return parent === '' ? 'about:blank' : problemBaseUrl + encodeSegment(parent);
}

/** RFC 3986 pchar without `%`: a segment of these needs no encoding. */
const PLAIN_SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]*$/;

/** Keeps a raw segment a valid URI segment: characters outside RFC 3986 pchar are encoded. */
function encodeSegment(segment: string): string {
  // Most segments are plain pchar already: one test instead of two replacing passes.
  if (PLAIN_SEGMENT.test(segment)) return segment;
  return segment.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/gu, (c) => encodeURIComponent(c)).replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
}

/** The document for a problem; `debug` decides whether an unexpected error shows its real message. */
export function buildProblemDocument(problem: ProblemAnswer, problemBaseUrl: string, rawPath: string, debug: boolean): ProblemDocument {
  // Only an unexpected error hides its message; a deliberate 5xx (503 busy) says what happened.
  const hideDetail = problem.code === 'internal_error' && !debug;
  const typeName = PROBLEMS[problem.code].type;
  const doc: ProblemDocument = {
    type: typeName === undefined ? problemType(problemBaseUrl, rawPath) : problemBaseUrl + typeName,
    title: problemTitle(problem.status),
    status: problem.status,
    detail: hideDetail ? GENERIC_DETAIL : problem.message,
    instance: rawPath,
  };
  return problem.extensions === NO_EXTENSIONS ? doc : { ...doc, ...problem.extensions };
}

/** What the HTML page may show about the request (dev only). */
export interface ProblemPageContext {
  readonly debug: boolean;
  readonly method: string;
  readonly target: string;
  readonly clientIp: string;
  readonly profilerLink: string | undefined;
  readonly stack: string | undefined;
  /** Links stack frames to their source (dev with the profiler); undefined leaves them as text. */
  readonly sourceLink?: SourceLink | undefined;
}

/** The problem as a response body of the negotiated representation. */
export function renderProblem(
  doc: ProblemDocument, representation: Representation, page: ProblemPageContext, plainPages: PlainProblemPages,
): { contentType: string; body: string } {
  if (representation === 'json') return { contentType: 'application/problem+json', body: JSON.stringify(doc) };
  return { contentType: 'text/html; charset=UTF-8', body: page.debug ? renderDebugPage(doc, page) : plainPages.page(doc.status, doc.title) };
}

/** More than every status a problem can carry: the bound is only a guard. */
export const MAX_PLAIN_PAGES = 100;

/**
 * The problem pages outside debug, which show only status and title, each written once: the
 * same page goes out again and again, so its text is made once and sent as it is (three 404s
 * in five on the realistic mix are HTML).
 * Keyed by status, checked by title (a masked title differs); at most MAX_PLAIN_PAGES entries.
 * Each app's problem responder has its own.
 */
export class PlainProblemPages {
  readonly #pages = new Map<number, { readonly title: string; readonly html: string }>();

  page(status: number, title: string): string {
    const known = this.#pages.get(status);
    if (known?.title === title) return known.html;
    const html = renderPage(`${status} ${title}`, problemHeading(status, title));
    if (this.#pages.size < MAX_PLAIN_PAGES) this.#pages.set(status, { title, html });
    return html;
  }
}

const problemHeading = (status: number, title: string) => `<p class="status">${status}</p><h1>${escapeHtml(title)}</h1>`;

/** A dev page: the problem, the request, the stack of an unexpected error, a link to the profile. */
function renderDebugPage(doc: ProblemDocument, page: ProblemPageContext): string {
  const heading = problemHeading(doc.status, doc.title);
  const profiler = page.profilerLink
    ? `<p><a href="${escapeHtml(page.profilerLink)}">Open the profile of this request</a></p>`
    : '';
  const stack = page.stack ? `<h2>Stack</h2>${renderStack(page.stack, page.sourceLink)}` : '';
  const body =
    heading +
    `<p class="detail">${escapeHtml(doc.detail)}</p>` +
    '<h2>Problem</h2>' +
    renderDefinitions(Object.entries(doc).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)])) +
    '<h2>Request</h2>' +
    renderDefinitions([
      ['method', page.method],
      ['target', page.target],
      ['client', page.clientIp],
    ]) +
    stack +
    profiler;
  return renderPage(`${doc.status} ${doc.title}`, body);
}

/**
 * The request headers a problem answer depends on (RFC 9110 12.5.5), so a cache reuses it only
 * for requests that would get the same bytes: the representation follows Accept; a "No route
 * found" message carries the Referer (a shared cache must not hand one visitor's referring URL,
 * query string included, to the next); a debug page shows the client's address and a link to
 * its own profile, which no header names (`*`). The plain HTML page shows status and title only.
 * Host is not listed: it is part of the target URI, the cache key (RFC 9110 7.2, RFC 9111 2).
 */
export function problemVary(problem: ProblemAnswer, representation: Representation, debug: boolean): string {
  if (representation === 'html') return debug ? '*' : 'Accept';
  return problem.code === 'route_not_found' ? 'Accept, Referer' : 'Accept';
}

/** How "No route found" 404s may be cached: `NOT_FOUND_CACHE_CONTROL` and its max-age, read once. */
export interface NotFoundCachePolicy {
  readonly cacheControl: string;
  /** Seconds, or undefined when the value has no max-age (then no Expires either). */
  readonly maxAgeSeconds: number | undefined;
}

/** Reads the max-age of the configured Cache-Control value (the operator's text, not a client's). */
export function notFoundCachePolicy(cacheControl: string): NotFoundCachePolicy {
  const match = /(?:^|[,\s])max-age=(\d+)/.exec(cacheControl);
  return { cacheControl, maxAgeSeconds: match ? Number(match[1]) : undefined };
}

/**
 * Headers of a problem response: the observed cache policy on "No route found" 404s (with
 * `expires` one max-age after `now`, written by `formatDate`, an HTTP-date formatter),
 * `no-cache, private` on every other error (a passing fault such as an unwritable store must not
 * be cached for a year), `x-robots-tag: none` on all.
 */
export function problemHeaders(
  problem: ProblemAnswer, now: number, notFound: NotFoundCachePolicy, formatDate: (instant: number) => string,
): string[] {
  const isNotFound = problem.code === 'route_not_found';
  const headers = ['x-robots-tag', 'none', 'cache-control', isNotFound ? notFound.cacheControl : 'no-cache, private'];
  if (isNotFound && notFound.maxAgeSeconds !== undefined) headers.push('expires', formatDate(now + notFound.maxAgeSeconds * 1000));
  for (const name in problem.headers) headers.push(name, problem.headers[name]!);
  return headers;
}

/**
 * Problems (RFC 9457): the error classes every part of the service throws, their type URIs,
 * and their JSON and HTML representations with the observed headers.
 */
import { STATUS_CODES } from 'node:http';
import { escapeHtml, renderDefinitions, renderPage, renderStack, type SourceLink } from './html.js';
import type { Representation } from './representation.js';
import { createHttpDateFormatter, type HeaderList } from './http/response.js';
import { rememberLast } from './util/remember-last.js';

export type ProblemCode =
  | 'route_not_found'
  | 'method_not_allowed'
  | 'invalid_method_override'
  | 'invalid_host'
  | 'untrusted_host'
  | 'store_not_writable'
  | 'file_cannot_be_opened'
  | 'token_not_found'
  | 'unauthorized'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'invalid_json'
  | 'invalid_poster_spec'
  | 'busy'
  | 'precondition_failed'
  | 'range_not_satisfiable'
  | 'insufficient_storage'
  | 'too_many_requests'
  | 'not_implemented'
  | 'bad_request'
  | 'internal_error';

/**
 * The problems of the service API, each with a type of its own that a client can branch on
 * (RFC 9457 3.1.1): `<PROBLEM_BASE>1.0/<name>`, listed with their meaning in the README. A code
 * without a name keeps the observed rule, the failing path's parent segment (SPEC 4): the
 * routing 404 and 405, the request-level 400s, 500.
 */
export const PROBLEM_TYPE_NAMES: Readonly<Record<ProblemCode, string | undefined>> = {
  route_not_found: undefined,
  method_not_allowed: undefined,
  invalid_method_override: undefined,
  invalid_host: undefined,
  untrusted_host: undefined,
  store_not_writable: undefined,
  file_cannot_be_opened: undefined,
  token_not_found: undefined,
  unauthorized: '1.0/unauthorized',
  unsupported_media_type: '1.0/unsupported-media-type',
  payload_too_large: '1.0/body-too-large',
  invalid_json: '1.0/invalid-json',
  invalid_poster_spec: '1.0/invalid-poster-spec',
  busy: '1.0/busy',
  precondition_failed: undefined,
  range_not_satisfiable: undefined,
  insufficient_storage: '1.0/storage-full',
  too_many_requests: '1.0/rate-limited',
  not_implemented: undefined,
  bad_request: undefined,
  internal_error: undefined,
};

/**
 * Base of every error the service answers with; one boundary (the app) renders it.
 *
 * A problem is an answer, not a bug: it carries no stack, and it is not built by the native
 * Error constructor, which costs about 350 ns even with no stack to capture (a fifth of all our
 * own work on a 404; measured in Node 20). Its prototype chain still runs through
 * Error.prototype, so `instanceof Error`, `name`, `message` and `cause` behave as for any error.
 * (An unexpected error keeps its own stack, as the cause of an InternalError.)
 */
export interface Problem extends Error {}
export class Problem {
  readonly code: ProblemCode;
  readonly status: number;
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** Extension members of the problem document. */
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(
    code: ProblemCode,
    status: number,
    detail: string,
    options: { headers?: Record<string, string>; extensions?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    // Each subclass is named for itself (`RouteNotFound`), as jose's errors are.
    this.name = new.target.name;
    this.message = detail;
    if (options.cause !== undefined) this.cause = options.cause;
    this.code = code;
    this.status = status;
    this.headers = options.headers ?? NO_HEADERS;
    this.extensions = options.extensions ?? NO_EXTENSIONS;
  }

  get title(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }

  /** The same problem with more response headers (a route's CORS headers on its every answer). */
  withHeaders(more: Readonly<Record<string, string>>): Problem {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as Problem;
    return Object.assign(copy, this, { headers: { ...this.headers, ...more } });
  }
}
Object.setPrototypeOf(Problem.prototype, Error.prototype);

/** The headers and extension members of a problem without any: shared, never written. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_EXTENSIONS: Readonly<Record<string, unknown>> = Object.freeze({});

/** No route matches the path, whatever the method. */
export class RouteNotFound extends Problem {
  readonly method: string;
  readonly path: string;
  readonly referer: string | undefined;
  constructor(method: string, rawPath: string, referer: string | undefined) {
    const from = referer ? ` (from "${referer}")` : '';
    super('route_not_found', 404, `No route found for "${method} ${rawPath}"${from}`);
    this.method = method;
    this.path = rawPath;
    this.referer = referer;
  }
}

/** The path is routed, the method is not. */
export class MethodNotAllowed extends Problem {
  readonly method: string;
  readonly path: string;
  readonly allow: readonly string[];
  constructor(method: string, rawPath: string, allow: readonly string[]) {
    const list = allow.join(', ');
    super('method_not_allowed', 405, `No route found for "${method} ${rawPath}": Method Not Allowed (Allow: ${list})`, {
      headers: { allow: list },
    });
    this.method = method;
    this.path = rawPath;
    this.allow = allow;
  }
}

/** `X-HTTP-Method` on a POST is not letters only. */
export class InvalidMethodOverride extends Problem {
  constructor() {
    super('invalid_method_override', 400, 'Invalid HTTP method override.');
  }
}

/** The Host header is not a host name or bracketed IPv6 address with an optional port. */
export class InvalidHost extends Problem {
  readonly host: string;
  constructor(host: string) {
    super('invalid_host', 400, `Invalid Host "${host}".`);
    this.host = host;
  }
}

/** HTTP/1.1 needs exactly one Host (RFC 9112 3.2): none, or more than one, is a 400. */
export class HostCount extends Problem {
  readonly count: number;
  constructor(count: number) {
    super('invalid_host', 400, count === 0 ? 'The request has no Host header.' : `The request has ${count} Host headers.`);
    this.count = count;
  }
}

/** A request target that is none of origin-form, absolute-form or `*` (RFC 9112 3.2). */
export class InvalidRequestTarget extends Problem {
  readonly target: string;
  constructor(target: string) {
    super('bad_request', 400, `Invalid request target "${target}".`);
    this.target = target;
  }
}

/**
 * A request line whose version is no HTTP/1.x. Node's parser lets `HTTP/0.9` and `HTTP/2.0`
 * through (it refuses the others itself); neither is HTTP/1 framing we can answer in kind, so:
 * 400, then close (RFC 9112 2.3).
 */
export class UnsupportedHttpVersion extends Problem {
  readonly version: string;
  constructor(version: string) {
    super('bad_request', 400, `HTTP version "${version}" is not supported.`, { headers: { connection: 'close' } });
    this.version = version;
  }
}

/** A transfer coding other than chunked: the body's end cannot be found (RFC 9112 6.1). */
export class UnsupportedTransferCoding extends Problem {
  readonly coding: string;
  constructor(coding: string) {
    super('not_implemented', 501, `Transfer-Encoding "${coding}" is not supported.`, { headers: { connection: 'close' } });
    this.coding = coding;
  }
}

/** The Host header is valid but not listed in `TRUSTED_HOSTS`. */
export class UntrustedHost extends Problem {
  readonly host: string;
  constructor(host: string) {
    super('untrusted_host', 400, `Untrusted Host "${host}".`);
    this.host = host;
  }
}

/** An unexpected error, wrapped so the boundary can log its cause and hide it in prod. */
export class InternalError extends Problem {
  constructor(cause: unknown) {
    super('internal_error', 500, cause instanceof Error ? cause.message : String(cause), { cause });
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
  const last = lastSlashBefore(rawPath, rawPath.length);
  const before = last <= 0 ? -1 : lastSlashBefore(rawPath, last);
  const parent = before < 0 ? '' : rawPath.slice(before + 1, last);
  return parent === '' ? 'about:blank' : problemBaseUrl + encodeSegment(parent);
}

/** Where the last `/` before `end` is, -1 if none (`lastIndexOf` is a call into the runtime in V8). */
function lastSlashBefore(text: string, end: number): number {
  for (let i = end - 1; i >= 0; i--) if (text.charCodeAt(i) === 0x2f) return i;
  return -1;
}

/** Keeps a raw segment a valid URI segment: characters outside RFC 3986 pchar are encoded. */
function encodeSegment(segment: string): string {
  return segment.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/gu, (c) => encodeURIComponent(c)).replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
}

/** The document for a problem; `debug` decides whether an unexpected error shows its real message. */
export function buildProblemDocument(problem: Problem, problemBaseUrl: string, rawPath: string, debug: boolean): ProblemDocument {
  // Only an unexpected error hides its message; a deliberate 5xx (503 busy) says what happened.
  const hideDetail = problem instanceof InternalError && !debug;
  const typeName = PROBLEM_TYPE_NAMES[problem.code];
  const doc: ProblemDocument = {
    type: typeName === undefined ? problemType(problemBaseUrl, rawPath) : problemBaseUrl + typeName,
    title: problem.title,
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
export function renderProblem(doc: ProblemDocument, representation: Representation, page: ProblemPageContext): {
  contentType: string;
  body: string;
} {
  if (representation === 'json') return { contentType: 'application/problem+json', body: problemJson(doc) };
  return { contentType: 'text/html; charset=UTF-8', body: renderProblemHtml(doc, page) };
}

/** The last document of the five RFC 9457 members alone written as JSON, and its text. */
let lastJson: { readonly doc: ProblemDocument; readonly text: string } | undefined;

const RFC_MEMBERS = 5;

/**
 * A problem document as JSON. A client asking again and again for one missing URL (a favicon, a
 * probe, a flood) gets the same document each time: the text of the last one is reused when
 * every member is the same. A document with extension members is always written afresh.
 */
function problemJson(doc: ProblemDocument): string {
  if (Object.keys(doc).length !== RFC_MEMBERS) return JSON.stringify(doc);
  if (lastJson !== undefined && sameMembers(lastJson.doc, doc)) return lastJson.text;
  const text = JSON.stringify(doc);
  lastJson = { doc, text };
  return text;
}

function sameMembers(a: ProblemDocument, b: ProblemDocument): boolean {
  return a.detail === b.detail && a.instance === b.instance && a.type === b.type && a.status === b.status && a.title === b.title;
}

/**
 * Outside debug a problem page shows only its status and title, so each is built once: a flood
 * of 404s sends the same page again and again. Keyed by status, checked by title (a masked
 * title differs); at most one entry per status code.
 */
const plainPages = new Map<number, { readonly title: string; readonly html: string }>();

function plainProblemPage(status: number, title: string): string {
  const known = plainPages.get(status);
  if (known?.title === title) return known.html;
  const html = renderPage(`${status} ${title}`, problemHeading(status, title));
  if (plainPages.size < MAX_PLAIN_PAGES) plainPages.set(status, { title, html });
  return html;
}

/** More than every status a problem can carry: the bound is only a guard. */
const MAX_PLAIN_PAGES = 100;

const problemHeading = (status: number, title: string) => `<p class="status">${status}</p><h1>${escapeHtml(title)}</h1>`;

function renderProblemHtml(doc: ProblemDocument, page: ProblemPageContext): string {
  if (!page.debug) return plainProblemPage(doc.status, doc.title);
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
export function problemVary(problem: Problem, representation: Representation, debug: boolean): string {
  if (representation === 'html') return debug ? '*' : 'Accept';
  return problem instanceof RouteNotFound ? 'Accept, Referer' : 'Accept';
}

/** The max-age of a Cache-Control value in seconds; the configured value repeats, parsed once. */
const maxAgeOf = rememberLast((cacheControl: string): number | undefined => {
  const match = /(?:^|[,\s])max-age=(\d+)/.exec(cacheControl);
  return match ? Number(match[1]) : undefined;
});

/** Expires dates, formatted once per second like Date. */
const expiresDate = createHttpDateFormatter();

/**
 * Headers of a problem response: the observed cache policy on "No route found" 404s (with
 * `expires` one max-age after `now`), `no-cache, private` on every other error (a passing
 * fault such as an unwritable store must not be cached for a year), `x-robots-tag: none` on all.
 */
export function problemHeaders(problem: Problem, now: number, notFoundCacheControl: string): HeaderList {
  const notFound = problem instanceof RouteNotFound;
  const headers = ['x-robots-tag', 'none', 'cache-control', notFound ? notFoundCacheControl : 'no-cache, private'];
  const maxAge = notFound ? maxAgeOf(notFoundCacheControl) : undefined;
  if (maxAge !== undefined) headers.push('expires', expiresDate(now + maxAge * 1000));
  for (const name in problem.headers) headers.push(name, problem.headers[name]!);
  return headers;
}

/**
 * `POST <SERVICE_BASE>posters` (only with POSTER_API=1): a bearer token, a JSON poster spec in,
 * 201 with the poster's URL out. Rendering runs in the worker pool; this module decides what may
 * be rendered and written.
 *
 * Order of the answers, cheapest first: 401 (token) and 415 (media type) before anything is
 * read; 429 (POSTER_RATE_LIMIT, before the body: a refused request costs no read); 413, 400, 422
 * on the body; then an existing poster is a 201 without rendering, and a new one is checked
 * against POSTER_MAX_BYTES (507) before rendering, when the store is already full, and with its
 * real size after rendering, before anything is written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { JWTPayload } from 'jose';
import { type Handler, type ServiceRoute, corsAnswerHeaders, corsPreflightHeaders, namespaceUrl, type RequestContext, UnsupportedMediaType, mediaTypeOf, parseJsonBody, readBody, sendBody, type HeaderList } from '../http/index.js';
import { Unauthorized } from '../jwt/index.js';
import type { Config } from '../config/index.js';
import { POSTER_HEIGHT, POSTER_WIDTH, posterFileNameOf, POSTER_SCHEMA_PATH, posterSchema, validatePosterSpec } from '../render/index.js';
import { writePosterFile } from './files.js';
import type { RenderPool } from './pool.js';
import { type RateLimiter, type StoreCount, fileSize } from './limits/index.js';
import { MethodNotAllowed, Problem, type ProblemCode } from '../core/index.js';

export const POSTER_BODY_LIMIT = 64 * 1024;
/** The route's path below SERVICE_BASE. */
export const POSTER_ROUTE = 'posters';
/** What the poster route answers, in the order `Allow` lists them (OPTIONS as `/` answers it). */
export const POSTER_METHODS: readonly string[] = ['OPTIONS', 'POST'];
/**
 * Every problem a POST to the route answers with, in the order above (the token, the media
 * type, the rate limit and the store it is counted in, the body, the spec, the store's room,
 * the render queue), then an unexpected error. The OpenAPI document (openapi.ts) describes each.
 */
export const POSTER_PROBLEMS = [
  'unauthorized', 'unsupported_media_type', 'too_many_requests', 'limits_unavailable', 'payload_too_large',
  'invalid_json', 'invalid_poster_spec', 'insufficient_storage', 'busy', 'internal_error',
] as const satisfies readonly ProblemCode[];
export type PosterProblemCode = (typeof POSTER_PROBLEMS)[number];
/** Where posters go, under PUBLIC_DIR (and so under STATIC_BASE). */
export const POSTERS_DIR = 'posters';
/** Where the rate limiter keeps its counts, under VAR_DIR (without REDIS_URL). */
export const POSTER_RATE_DIR = 'poster-rate';

/**
 * A spec that does not validate; `errors` lists every problem with its JSON pointer, and
 * `schema` (also a `Link: rel="describedby"`) names the JSON Schema the spec must follow.
 */
export class InvalidPosterSpec extends Problem {
  readonly errors: readonly { pointer: string; reason: string }[];
  constructor(errors: readonly { pointer: string; reason: string }[], schemaUrl: string) {
    super('invalid_poster_spec', `The poster spec has ${errors.length} problem${errors.length === 1 ? '' : 's'}.`, {
      extensions: { errors, schema: schemaUrl },
      headers: { link: `<${schemaUrl}>; rel="describedby"` },
    });
    this.errors = errors;
  }
}

/** The absolute URL of the poster spec's schema for a request's base URL. */
export function posterSchemaUrl(config: Config, baseUrl: string): string {
  return namespaceUrl(config.namespaces.schema, baseUrl) + POSTER_SCHEMA_PATH;
}

/** `GET <SCHEMA_BASE>1.0/poster.json` (with POSTER_API=1): the poster spec's JSON Schema. */
export function posterSchemaRoute(config: Config): ServiceRoute {
  const handler: Handler = (ctx, _req, res) => {
    const body = JSON.stringify(posterSchema(posterSchemaUrl(config, ctx.baseUrl)), null, 2);
    sendBody(res, 200, ['content-type', 'application/schema+json', 'cache-control', 'public, max-age=3600', 'vary', 'Host'], body, ctx.receivedAt);
  };
  return { id: 'api.schema.poster', path: `${config.namespaces.schema.path}${POSTER_SCHEMA_PATH}`, methods: ['GET', 'HEAD'], handler };
}

export interface PosterApiOptions {
  readonly config: Config;
  readonly guard: (authorization: string | undefined) => Promise<JWTPayload>;
  readonly pool: RenderPool;
  /** What `<PUBLIC_DIR>/posters/` holds, against POSTER_MAX_BYTES. */
  readonly store: StoreCount;
  /** POSTER_RATE_LIMIT; undefined when it is 0 (off). */
  readonly limiter: RateLimiter | undefined;
  /** The realm of the bearer challenge (RFC 6750 3), for the 401 of a token without a subject. */
  readonly realm: string;
}

/**
 * Whose requests the rate limit counts: the token's `sub` (a string, or a number as some issuers
 * write it), else the `username` claim that `jwt token` writes; undefined when there is neither.
 * Keyed by the subject's JSON: `sub: 1` and `sub: "1"` are two subjects, while a token of
 * `jwt token` (`sub` and `username` alike) and an older one (`username` only) count as one.
 */
export function tokenSubject(claims: JWTPayload): string | undefined {
  const sub: unknown = claims.sub;
  if (typeof sub === 'string' || (typeof sub === 'number' && Number.isFinite(sub))) return JSON.stringify(sub);
  if (typeof claims.username === 'string') return JSON.stringify(claims.username);
  return undefined;
}

/** The subject as an operator reads it in the access log: the claim's value as text. */
export function subjectText(claims: JWTPayload): string | undefined {
  const sub: unknown = claims.sub;
  if (typeof sub === 'string' || (typeof sub === 'number' && Number.isFinite(sub))) return String(sub);
  return typeof claims.username === 'string' ? claims.username : undefined;
}

/** What a token without a subject is told when the rate limit, which counts per subject, is on. */
export const NO_SUBJECT_DETAIL = 'The token names no subject ("sub", a string or number, or "username", a string): POSTER_RATE_LIMIT counts requests per subject.';

/** What the poster route works with: its options, and the directory posters are written to. */
interface PosterApi extends PosterApiOptions {
  /** `<PUBLIC_DIR>/posters`. */
  readonly postersDir: string;
}

export function posterApiRoute(options: PosterApiOptions): ServiceRoute {
  const { config } = options;
  const api: PosterApi = { ...options, postersDir: join(config.publicDir, POSTERS_DIR) };
  // The route answers every method itself, so each answer (a 405 and a preflight included) is
  // JSON and carries the CORS headers a browser needs to read it: its problems through
  // `problemHeaders`, which the app's problem responder adds.
  const corsFor = (req: IncomingMessage) => corsAnswerHeaders(config.corsOrigins, req.headers.origin);
  const handler: Handler = async (ctx, req, res) => {
    if (ctx.method === 'OPTIONS') return answerOptions(config, ctx, req, res, corsFor(req));
    if (ctx.method !== 'POST') throw new MethodNotAllowed(ctx.method, ctx.rawPath, POSTER_METHODS);
    await createPoster(api, ctx, req, res, corsFor(req));
  };
  return { id: 'api.posters.create', path: `${config.namespaces.service.path}${POSTER_ROUTE}`, methods: ['POST'], handlesEveryMethod: true, handler, problemHeaders: corsFor };
}

/** The answer to OPTIONS: 204 with `Allow`, and a preflight's CORS headers when it is one. */
function answerOptions(config: Config, ctx: RequestContext, req: IncomingMessage, res: ServerResponse, cors: HeaderList): void {
  // A preflight (Fetch, "CORS-preflight request") never carries the token: it is answered first.
  const preflight = req.headers['access-control-request-method'] !== undefined;
  const headers = preflight ? corsPreflightHeaders(config.corsOrigins, req.headers.origin, 'POST') : cors;
  sendBody(res, 204, ['allow', POSTER_METHODS.join(', '), ...headers], '', ctx.receivedAt);
}

/** The answer to a POST: 201, or a thrown problem. */
async function createPoster(api: PosterApi, ctx: RequestContext, req: IncomingMessage, res: ServerResponse, cors: HeaderList): Promise<void> {
  const { config, limiter, postersDir } = api;
  const claims = await api.guard(req.headers.authorization);
  const subject = subjectText(claims);
  if (subject !== undefined) ctx.attributes['security.subject'] = subject;
  const type = mediaTypeOf(req.headers['content-type']);
  if (type !== 'application/json') throw new UnsupportedMediaType('application/json', type);
  // Every request that gets this far counts, whatever its answer: an existing poster too.
  if (limiter) {
    // Tokens without a subject would all share one count: one client's burst would refuse the others.
    const subject = tokenSubject(claims);
    if (subject === undefined) throw new Unauthorized(api.realm, NO_SUBJECT_DETAIL, true);
    await limiter.take(subject);
  }
  const input = parseJsonBody(await readBody(req, POSTER_BODY_LIMIT));
  const checked = validatePosterSpec(input);
  if (!checked.ok) throw new InvalidPosterSpec(checked.errors, posterSchemaUrl(config, ctx.baseUrl));
  const name = posterFileNameOf(checked.value);
  const size = (await fileSize(join(postersDir, name))) ?? (await renderNewPoster(api, checked.value, name));
  const url = `${namespaceUrl(config.namespaces.static, ctx.baseUrl)}${POSTERS_DIR}/${name}`;
  const body = JSON.stringify({ url, width: POSTER_WIDTH, height: POSTER_HEIGHT, bytes: size });
  sendBody(res, 201, ['location', url, 'content-type', 'application/json', 'cache-control', 'no-cache, private', ...cors], body, ctx.receivedAt);
}

/** Renders and writes a poster that is not there yet, within POSTER_MAX_BYTES; its size. */
async function renderNewPoster({ pool, store, postersDir }: PosterApi, spec: Parameters<RenderPool['render']>[0], name: string): Promise<number> {
  await store.checkRoom();
  const bytes = await pool.render(spec);
  // Another request may have written it while this one rendered.
  const written = await fileSize(join(postersDir, name));
  if (written !== undefined) return written;
  const admission = await store.admit({ bytes: bytes.byteLength, name });
  try {
    if (await writePosterFile(postersDir, name, bytes)) await admission.written();
  } finally {
    await admission.release();
  }
  return bytes.byteLength;
}

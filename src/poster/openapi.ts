/**
 * The service API described as OpenAPI 3.1, served with POSTER_API=1 at
 * `<SCHEMA_BASE>openapi.json`: the poster route, its request schema (built by `posterSchema`, the
 * function behind `<SCHEMA_BASE>1.0/poster.json`, so the two cannot differ), the bearer JWT
 * scheme, the 201 and every problem the route answers with (POSTER_PROBLEMS: each status from the
 * problem catalogue, each type URI built as the answers build it). Every URL in it follows the
 * request's base URL, as the poster schema's `$id` does.
 */
import type { Config } from '../config/index.js';
import { buildProblemDocument, PROBLEMS, type ProblemCode } from '../core/index.js';
import { type Handler, namespaceUrl, sendBody, type ServiceRoute } from '../http/index.js';
import { JWT_ALGORITHM } from '../jwt/index.js';
import { POSTER_HEIGHT, POSTER_WIDTH, posterSchema } from '../render/index.js';
import { DEFAULT_SERVICE_DOCUMENT } from '../store/index.js';
import { POSTER_BODY_LIMIT, POSTER_METHODS, POSTER_PROBLEMS, POSTER_ROUTE, type PosterProblemCode, posterSchemaUrl } from './api.js';

/** Where the document is served below SCHEMA_BASE. */
export const OPENAPI_PATH = 'openapi.json';
/** The OpenAPI Initiative's media type (IANA), naming the version; its `+json` lets any JSON tool read it. */
export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.1';
/** The version of the OpenAPI Specification the document follows. */
export const OPENAPI_VERSION = '3.1.1';

/** The response headers the document describes, by the names it gives them. */
type HeaderName = 'Allow' | 'Link' | 'Location' | 'Retry-After' | 'WWW-Authenticate';

/** What the document says of one problem of the route. */
interface ProblemNote {
  /** When the route answers with it. */
  readonly when: string;
  /** The response headers it carries. */
  readonly headers?: readonly HeaderName[];
  /** Its extension members, each with its JSON Schema. */
  readonly extensions?: Readonly<Record<string, object>>;
}

/**
 * Each problem of the route, as this configuration answers it. Keyed by POSTER_PROBLEMS' codes,
 * so a code added there does not compile until it is described here.
 */
function problemNotes(config: Config, schemaUrl: string): Readonly<Record<PosterProblemCode, ProblemNote>> {
  const { tokenTtl, clockSkew } = config.jwt;
  const rate = config.posterRateLimit > 0 ? `${config.posterRateLimit} a minute here` : 'off here';
  return {
    unauthorized: {
      when: `No bearer token; a token that is not an ${JWT_ALGORITHM} JWT with \`exp\` and \`iat\` valid now (JWT_CLOCK_SKEW: ${clockSkew} s), that lives longer than JWT_TOKEN_TTL (${tokenTtl} s) or was issued longer ago; or, with POSTER_RATE_LIMIT on, a token that names no subject (\`sub\`, else \`username\`).`,
      headers: ['WWW-Authenticate'],
    },
    unsupported_media_type: { when: 'The body is not `application/json`.' },
    too_many_requests: {
      when: `The token's subject has made its POSTER_RATE_LIMIT requests (${rate}) in this minute's window.`,
      headers: ['Retry-After'],
    },
    limits_unavailable: {
      when: 'With REDIS_URL: the limits cannot be checked (Redis cannot be reached), so no poster is made.',
      headers: ['Retry-After'],
    },
    payload_too_large: { when: `The body is over ${POSTER_BODY_LIMIT} bytes; the rest of it is not read, and the connection closes.` },
    invalid_json: { when: 'The body is not JSON.' },
    invalid_poster_spec: {
      when: 'The spec breaks the schema: `errors` lists every problem with its JSON pointer.',
      headers: ['Link'],
      extensions: {
        errors: { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/SpecError' } },
        schema: { type: 'string', format: 'uri', const: schemaUrl, description: 'The JSON Schema the spec must follow (also in `Link`).' },
      },
    },
    insufficient_storage: {
      when: `A new poster would take the store past POSTER_MAX_BYTES (${config.posterMaxBytes} bytes here); nothing is written. A poster that exists (the same spec) is still a 201.`,
      extensions: {
        limit: { type: 'integer', minimum: 0, description: 'POSTER_MAX_BYTES.' },
        used: { type: 'integer', minimum: 0, description: 'Bytes the store holds.' },
      },
    },
    busy: { when: 'Every render worker is busy and the render queue is full.', headers: ['Retry-After'] },
    internal_error: { when: 'An unexpected error, logged (outside APP_DEBUG, the detail says no more).' },
  };
}

/** The headers of `components.headers`. */
function headers(schemaUrl: string): Readonly<Record<HeaderName, object>> {
  return {
    'Allow': { required: true, schema: { type: 'string', const: POSTER_METHODS.join(', ') }, description: 'The methods of the route.' },
    'Link': { required: true, schema: { type: 'string', const: `<${schemaUrl}>; rel="describedby"` }, description: 'The JSON Schema the spec must follow.' },
    'Location': { required: true, schema: { type: 'string', format: 'uri' }, description: "The poster's URL (the body's `url`)." },
    'Retry-After': { required: true, schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before asking again (RFC 9110 10.2.3).' },
    'WWW-Authenticate': {
      required: true,
      schema: { type: 'string' },
      description: `The bearer challenge (RFC 6750 3): \`Bearer realm="${DEFAULT_SERVICE_DOCUMENT.name}"\`, with \`error="invalid_token"\` and \`error_description\` when a token was sent.`,
    },
  };
}

/** What the parts of a document are built from, for one configuration and base URL. */
interface DocumentContext {
  readonly notes: Readonly<Record<PosterProblemCode, ProblemNote>>;
  /** The problem base URL. */
  readonly problemBase: string;
  /** The route's path, from which a problem without a type of its own takes one. */
  readonly routePath: string;
}

/** The `type` of a problem of the route, as the problem responder writes it. */
function problemType(code: ProblemCode, { problemBase, routePath }: DocumentContext): string {
  const answer = { code, status: PROBLEMS[code].status, message: '', headers: {}, extensions: {}, reportedElsewhere: false };
  return buildProblemDocument(answer, problemBase, routePath, false).type;
}

/** The schema of one problem's document: a Problem with its type, status and extension members. */
function problemSchema(code: PosterProblemCode, context: DocumentContext): object {
  const extensions = context.notes[code].extensions ?? {};
  return {
    allOf: [
      { $ref: '#/components/schemas/Problem' },
      {
        properties: { type: { const: problemType(code, context) }, status: { const: PROBLEMS[code].status }, ...extensions },
        ...(Object.keys(extensions).length > 0 ? { required: Object.keys(extensions) } : {}),
      },
    ],
  };
}

/** The response of one status: its problems (one, or several told apart by `type`), their headers. */
function problemResponse(codes: readonly PosterProblemCode[], context: DocumentContext): object {
  const names = [...new Set(codes.flatMap((code) => context.notes[code].headers ?? []))].sort();
  const schemas = codes.map((code) => problemSchema(code, context));
  return {
    description: codes.map((code) => `\`${problemType(code, context)}\`: ${context.notes[code].when}`).join('\n\n'),
    ...(names.length > 0 ? { headers: Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])) } : {}),
    content: { 'application/problem+json': { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } } },
  };
}

/** The responses of a POST: the 201, then every status of POSTER_PROBLEMS in ascending order. */
function postResponses(context: DocumentContext): Record<string, object> {
  const byStatus = new Map<number, PosterProblemCode[]>();
  for (const code of POSTER_PROBLEMS) byStatus.set(PROBLEMS[code].status, [...(byStatus.get(PROBLEMS[code].status) ?? []), code]);
  const responses: Record<string, object> = {
    201: {
      description: 'The poster is made, or was already (the same spec gives the same URL): its URL and size.',
      headers: { Location: { $ref: '#/components/headers/Location' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Poster' } } },
    },
  };
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) responses[status] = problemResponse(byStatus.get(status)!, context);
  return responses;
}

/** The path item of the poster route. */
function postersPath(context: DocumentContext): object {
  const notAllowed = problemType('method_not_allowed', context);
  return {
    description: `Other methods are answered 405 with \`Allow: ${POSTER_METHODS.join(', ')}\` (a problem of type \`${notAllowed}\`). Every problem of the route is \`application/problem+json\`, whatever the \`Accept\`. With CORS_ORIGINS, answers to a listed origin carry the \`Access-Control-*\` headers.`,
    post: {
      operationId: 'createPoster',
      summary: 'Make a poster',
      description: `Renders the spec as a ${POSTER_WIDTH} × ${POSTER_HEIGHT} baseline JPEG, served under STATIC_BASE \`posters/<content hash>.jpg\`. An existing poster is answered without rendering. Checks run cheapest first: the token, the media type, the rate limit (every request past the media type counts), the body, the spec, the store's room.`,
      security: [{ bearerJwt: [] }],
      requestBody: {
        required: true,
        description: `A poster spec, at most ${POSTER_BODY_LIMIT} bytes.`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/PosterSpec' } } },
      },
      responses: postResponses(context),
    },
    options: {
      operationId: 'posterOptions',
      summary: "The route's methods; the answer to a CORS preflight",
      description: 'Needs no token. A preflight from an origin listed in CORS_ORIGINS also gets `Access-Control-Allow-Methods`, `-Headers` and `-Max-Age`.',
      security: [],
      responses: { 204: { description: 'No body.', headers: { Allow: { $ref: '#/components/headers/Allow' } } } },
    },
  };
}

/** The schemas of `components.schemas`: the spec, the 201's body and the problem documents. */
function schemas(schemaUrl: string): Record<string, object> {
  return {
    PosterSpec: posterSchema(schemaUrl),
    Poster: {
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', description: "The poster's URL, as in `Location`." },
        width: { const: POSTER_WIDTH, description: 'Pixels.' },
        height: { const: POSTER_HEIGHT, description: 'Pixels.' },
        bytes: { type: 'integer', minimum: 1, description: "The JPEG file's size." },
      },
      required: ['url', 'width', 'height', 'bytes'],
      additionalProperties: false,
    },
    Problem: {
      type: 'object',
      description: 'A problem document (RFC 9457); some carry extension members.',
      properties: {
        type: { type: 'string', format: 'uri', description: 'What kind of problem: a client branches on it, never on `detail`.' },
        title: { type: 'string', description: "The status's reason phrase." },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string', description: 'What went wrong, for a person.' },
        instance: { type: 'string', description: "The request's path, as sent." },
      },
      required: ['type', 'title', 'status', 'detail', 'instance'],
    },
    SpecError: {
      type: 'object',
      properties: {
        pointer: { type: 'string', description: 'Where, as a JSON Pointer (RFC 6901) into the spec ("" is the spec itself).' },
        reason: { type: 'string' },
      },
      required: ['pointer', 'reason'],
      additionalProperties: false,
    },
  };
}

/** The OpenAPI document of the service API for a request whose base URL is `baseUrl`. */
export function openApiDocument(config: Config, baseUrl: string): Record<string, unknown> {
  const schemaUrl = posterSchemaUrl(config, baseUrl);
  const context: DocumentContext = {
    notes: problemNotes(config, schemaUrl),
    problemBase: namespaceUrl(config.namespaces.problem, baseUrl),
    routePath: `${config.namespaces.service.path}${POSTER_ROUTE}`,
  };
  const { tokenTtl, clockSkew } = config.jwt;
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: DEFAULT_SERVICE_DOCUMENT.name,
      version: DEFAULT_SERVICE_DOCUMENT.version,
      description: `Posters made from a JSON spec (its JSON Schema: ${schemaUrl}), behind ${JWT_ALGORITHM} bearer tokens. Problems are RFC 9457 documents whose \`type\` a client can branch on.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // The service namespace without its final slash: OpenAPI appends each path, which starts with one.
    servers: [{ url: namespaceUrl(config.namespaces.service, baseUrl).replace(/\/$/, '') }],
    paths: { [`/${POSTER_ROUTE}`]: postersPath(context) },
    components: {
      schemas: schemas(schemaUrl),
      headers: headers(schemaUrl),
      securitySchemes: {
        bearerJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `A JWT signed with ${JWT_ALGORITHM} (P-521), as \`jwt token <subject>\` issues: \`exp\` and \`iat\` required, a lifetime of at most JWT_TOKEN_TTL (${tokenTtl} s), checked with JWT_CLOCK_SKEW (${clockSkew} s).`,
        },
      },
    },
  };
}

/** `GET <SCHEMA_BASE>openapi.json` (with POSTER_API=1): the service API's OpenAPI document. */
export function openApiRoute(config: Config): ServiceRoute {
  const handler: Handler = (ctx, _req, res) => {
    const body = JSON.stringify(openApiDocument(config, ctx.baseUrl), null, 2);
    sendBody(res, 200, ['content-type', OPENAPI_MEDIA_TYPE, 'cache-control', 'public, max-age=3600', 'vary', 'Host'], body, ctx.receivedAt);
  };
  return { id: 'api.schema.openapi', path: `${config.namespaces.schema.path}${OPENAPI_PATH}`, methods: ['GET', 'HEAD'], handler };
}

/**
 * `POST <SERVICE_BASE>posters` (only with POSTER_API=1): a bearer token, a JSON poster spec in,
 * 201 with the poster's URL out. Rendering runs in the worker pool.
 */
import type { JWTPayload } from 'jose';
import type { Handler } from './app.js';
import type { Config } from './config.js';
import { POSTER_HEIGHT, POSTER_WIDTH } from './posterEncoder/poster.js';
import { validatePosterSpec } from './posterEncoder/spec.js';
import type { RenderPool } from './poster-pool.js';
import { Problem } from './problem.js';
import { namespaceUrl } from './request.js';
import { UnsupportedMediaType, mediaTypeOf, parseJsonBody, readBody } from './request-body.js';
import { sendBody } from './response.js';
import type { Route } from './router.js';

export const POSTER_BODY_LIMIT = 64 * 1024;

/** A spec that does not validate; `errors` lists every problem with its JSON pointer. */
export class InvalidPosterSpec extends Problem {
  constructor(errors: readonly { pointer: string; reason: string }[]) {
    super('invalid_poster_spec', 422, `The poster spec has ${errors.length} problem${errors.length === 1 ? '' : 's'}.`, {
      extensions: { errors },
    });
  }
}

export interface PosterApiOptions {
  readonly config: Config;
  readonly guard: (authorization: string | undefined) => Promise<JWTPayload>;
  readonly pool: RenderPool;
}

export function posterApiRoute({ config, guard, pool }: PosterApiOptions): Route<Handler> {
  const handler: Handler = async (ctx, req, res) => {
    await guard(req.headers.authorization);
    const type = mediaTypeOf(req.headers['content-type']);
    if (type !== 'application/json') throw new UnsupportedMediaType('application/json', type);
    const input = parseJsonBody(await readBody(req, POSTER_BODY_LIMIT));
    const checked = validatePosterSpec(input);
    if (!checked.ok) throw new InvalidPosterSpec(checked.errors);
    const { file, bytes } = await pool.render(checked.spec);
    const url = namespaceUrl(config.namespaces.static, ctx.baseUrl) + file;
    const body = JSON.stringify({ url, width: POSTER_WIDTH, height: POSTER_HEIGHT, bytes });
    sendBody(res, 201, { location: url, 'content-type': 'application/json', 'cache-control': 'no-cache, private' }, body, ctx.receivedAt);
  };
  return { id: 'api.posters.create', path: `${config.namespaces.service.path}posters`, methods: ['POST'], handler };
}

/**
 * The static route as the app sees it: the methods it allows, and a handler that imports the
 * file-serving code (`static.ts` and its helpers, about ten modules) on the first static request.
 * A service asked only for `/`, its API and unrouted paths never loads them, so it starts sooner
 * and smaller; the first static request pays the import once.
 */
import type { StaticHandler, StaticOptions } from '../static.js';

/** The methods a static file allows, in Allow order. */
export const STATIC_METHODS: readonly string[] = ['GET', 'HEAD'];

/** The static handler for `options`, loaded when it is first needed. */
export function createStaticHandlerOnDemand(options: StaticOptions): StaticHandler {
  let loading: Promise<StaticHandler> | undefined;
  const load = () =>
    import('../static.js').then(
      (m) => m.createStaticHandler(options),
      (err: unknown) => {
        // A failed import is not remembered: the next request tries again.
        loading = undefined;
        throw err;
      },
    );
  return (ctx, req, res, segments) => (loading ??= load()).then((serve) => serve(ctx, req, res, segments));
}

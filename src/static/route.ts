/**
 * The static route as the app sees it: the methods it allows. The app imports file serving
 * (`static.ts`) with its own modules, at start-up, not on the first static request: Node's module
 * loader keeps a failed import for the life of the process, a failed dependency included (seen on
 * Node 20: after an EMFILE, importing the same URL again, or the entry under a new query string,
 * fails the same way), so an import that met a shortage of descriptors left every later static
 * request a 500 until a restart. Loaded with the app, a failure stops the start instead.
 */

/** The methods a static file allows, in Allow order. */
export const STATIC_METHODS: readonly string[] = ['GET', 'HEAD'];

/**
 * Posters: the service API (`POST` a spec, get the JPEG's URL; bearer JWT, rate limit and
 * quota), the render pool whose workers draw off the event loop, and the library's one-off
 * `renderPoster` and `writePoster` and its `createPosterRenderer` for a run of posters. The
 * server imports this door only when POSTER_API is on.
 */
export { checkPosterSpec, createPosterRenderer, posterFileName, type PosterRenderer, type PosterRenderOptions, PosterSpecError, renderPoster, writePoster } from './library.js';
export { type RenderResult } from './pool.js';
export { createPosterService, type PosterService } from './service.js';

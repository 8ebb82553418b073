/**
 * Static files under STATIC_BASE from PUBLIC_DIR: pure planners (paths, conditionals, ranges,
 * types) around one I/O shell, `serve.ts`.
 */
export { createStaticHandler, STATIC_METHODS } from './serve.js';

/**
 * Drawing a poster, pure: the spec and its JSON Schema, the design and layout, fonts read from
 * their bytes, the canvas and its shapes, and `PosterRenderer`, which paints each band of rows
 * as the JPEG encoder asks for it.
 */
export { type PosterFonts } from './design.js';
export { Font } from './font/font.js';
export { POSTER_HEIGHT, POSTER_WIDTH, posterFileNameOf, PosterRenderer, RENDERER_VERSION, renderPosterJpeg } from './poster.js';
export { POSTER_SCHEMA_PATH, posterSchema } from './schema.js';
export { type PosterSpec, type PosterSpecInput, type Shape, type SpecError, validatePosterSpec, type ValidationResult } from './spec.js';

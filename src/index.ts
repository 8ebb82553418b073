/**
 * The library API: what `import … from 'problem-service'` gives. Every name here is a promise kept
 * across minor versions, each documented (docs/library.md, "The library API"); the rest of
 * src/ is internal and may change in any release. test/index.test.ts lists the names, so one
 * cannot be added or dropped by accident.
 */
export { startServer, type RunningServer, type StartOptions } from './server.js';
export { createApp, type AppOptions, type Handler } from './app/index.js';
export { loadConfig, parseConfig, ConfigError, type Config } from './config/index.js';
export { Problem, type ProblemCode, type ProblemDocument } from './core/index.js';
export {
  createStreamLogger,
  createFileLogger,
  type Logger,
  type LogLevel,
  type FileLogger,
  type FileLoggerOptions,
  type AccessLog,
  type AccessRecord,
} from './log/index.js';
export { encodeJpeg, type JpegBandedImage, type JpegImage, type JpegOptions, type Subsampling } from './jpeg/index.js';
export {
  renderPoster,
  createPosterRenderer,
  writePoster,
  posterFileName,
  checkPosterSpec,
  PosterSpecError,
  type PosterRenderer,
  type PosterRenderOptions,
} from './poster/index.js';
export {
  RENDERER_VERSION,
  POSTER_WIDTH,
  POSTER_HEIGHT,
  posterSchema,
  validatePosterSpec,
  type PosterSpec,
  type PosterSpecInput,
  type Shape,
  type SpecError,
  type ValidationResult,
} from './render/index.js';
export { issueToken, verifyToken, loadKeyPair, generateKeyPairPem, type KeyPair } from './jwt/index.js';

/**
 * The library API: what `import … from '<package>'` gives.
 */
export { startServer, type RunningServer, type StartOptions } from './server.js';
export { createApp, type AppOptions, type Handler } from './app/index.js';
export { loadConfig, parseConfig, ConfigError, type Config } from './config/index.js';
export { Problem, type ProblemCode, type ProblemDocument } from './core/index.js';
export { createStreamLogger, formatLine, formatTimestamp, type Logger, type LogLevel } from './log/index.js';
export { createFileLogger, type FileLogger, type FileLoggerOptions } from './log/index.js';
export { logFileName, nextMidnight, pruneList } from './log/index.js';
export type { AccessLog, AccessRecord } from './log/index.js';
export { encodeJpeg, type JpegImage, type JpegOptions, type Subsampling } from './jpeg/index.js';
export { renderPoster, writePoster, posterFileName, checkPosterSpec, PosterSpecError } from './poster/index.js';
export { RENDERER_VERSION, POSTER_WIDTH, POSTER_HEIGHT } from './render/index.js';
export { posterSchema } from './render/index.js';
export {
  validatePosterSpec,
  type PosterSpec,
  type PosterSpecInput,
  type Shape,
  type SpecError,
  type ValidationResult,
} from './render/index.js';
export { issueToken, verifyToken, loadKeyPair, generateKeyPairPem, type KeyPair } from './jwt/index.js';

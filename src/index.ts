/**
 * The library API: what `import … from '<package>'` gives.
 */
export { startServer, type RunningServer, type StartOptions } from './server.js';
export { createApp, type AppOptions, type Handler } from './app.js';
export { loadConfig, parseConfig, ConfigError, type Config } from './config.js';
export { Problem, type ProblemCode, type ProblemDocument } from './problem.js';
export { createStreamLogger, formatLine, formatTimestamp, type Logger, type LogLevel } from './log.js';
export { createFileLogger, type FileLogger, type FileLoggerOptions } from './log-file.js';
export { logFileName, nextMidnight, pruneList } from './log-rotation.js';

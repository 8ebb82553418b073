/**
 * The daily log files the settings describe: the error log and, unless ACCESS_LOG=0, the access
 * log, both in LOG_DIR with the same time zone, retention and byte cap.
 */
import { createSecretMasker, type Config } from '../config/index.js';
import type { AccessLog } from './access-log.js';
import { createFileLogger, type FileLogger, type FileLoggerOptions } from './file-sink.js';

/** What both logs take from the settings. */
function dailyFileOptions(config: Config, clock: (() => number) | undefined): FileLoggerOptions {
  return {
    dir: config.logDir,
    appEnv: config.appEnv,
    timeZone: config.logTimeZone,
    maxFiles: config.logMaxFiles,
    maxBytes: config.logMaxBytes,
    clock,
  };
}

/** The error log's daily file sink. */
export function createConfiguredFileLogger(config: Config, clock?: () => number): FileLogger {
  return createFileLogger({ ...dailyFileOptions(config, clock), requestIds: config.logRequestIds });
}

/** The access log, or none with ACCESS_LOG=0 (its modules are then never loaded). */
export async function createConfiguredAccessLog(config: Config, clock?: () => number): Promise<AccessLog | undefined> {
  if (!config.accessLog) return undefined;
  const { createAccessLog } = await import('./access-log.js');
  return createAccessLog({ ...dailyFileOptions(config, clock), mask: createSecretMasker(config) });
}

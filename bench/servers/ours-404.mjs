// Our service from the compiled build, for the 404 flood: `file` logs to LOG_DIR, `none` drops lines.
import { loadConfig, startServer, createFileLogger } from '../../dist/index.js';

const mode = process.argv[2] ?? 'file';
const config = loadConfig({ env: { ...process.env, APP_ENV: 'prod', APP_DEBUG: '0', PORT: '0' } });
const none = { log() {}, flush: async () => {} };
const logger =
  mode === 'none'
    ? none
    : createFileLogger({ dir: config.logDir, appEnv: config.appEnv, timeZone: config.logTimeZone, maxFiles: config.logMaxFiles });
const running = await startServer({ config, logger });
process.on('SIGTERM', () => void running.stop().then(() => process.exit(0)));
process.stdout.write(`listening on ${running.url}\n`);

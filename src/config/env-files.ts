/**
 * `.env` files, loaded like Symfony's Dotenv: `.env`, `.env.local` (skipped when APP_ENV=test),
 * `.env.<APP_ENV>`, `.env.<APP_ENV>.local`; later files win, real environment variables win
 * over every file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './config-error.js';
import { errorCode } from '../util/errno.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads the env files in `dir` under the real environment `env` and returns the merged
 * variables (real environment last, so it wins).
 */
export function readEnvFiles(dir: string, env: Env): Record<string, string | undefined> {
  const fromFile = (name: string): Record<string, string> => {
    const path = join(dir, name);
    if (!existsSync(path)) return {};
    try {
      return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
    } catch (err) {
      throw new ConfigError(name, `cannot be read (${errorCode(err) ?? 'error'})`);
    }
  };
  const base = { ...fromFile('.env') };
  const appEnvSoFar = env.APP_ENV ?? base.APP_ENV ?? 'dev';
  const local = appEnvSoFar === 'test' ? {} : fromFile('.env.local');
  const appEnv = env.APP_ENV ?? local.APP_ENV ?? base.APP_ENV ?? 'dev';
  return {
    ...base,
    ...local,
    ...fromFile(`.env.${appEnv}`),
    ...fromFile(`.env.${appEnv}.local`),
    ...env,
  };
}

/**
 * The start-up warnings about settings that do nothing: lines of `.env` files that set no
 * variable, names there that are no setting, environment variables that look like a setting
 * misspelled, and CORS_ORIGINS without the poster API it is for. Said once, on stderr, and the
 * service starts all the same. A line is named by its file and number, never by its value: it
 * may hold a secret.
 */
import type { Config } from './config-types.js';
import { type Env, type EnvFile, openEnvFiles } from './env-files.js';
import { looksLikeASetting, nearSettingName, readSettingNames } from './setting-names.js';

/** The warnings for `config`, read from `dir`'s env files and the environment `env` it was read from. */
export function readSettingWarnings(config: Config, { dir, env }: { readonly dir: string; readonly env: Env }): string[] {
  return settingWarnings({ files: openEnvFiles(dir, env), env, config, settings: readSettingNames() });
}

/**
 * The warnings about names alone (lines that set nothing, names that are no setting), for the
 * commands that read a few settings of their own: `jwt token` with `JWT_TOKEN_TL=60` in .env
 * would otherwise use the default lifetime without a word.
 */
export function readSettingNameWarnings({ dir, env }: { readonly dir: string; readonly env: Env }): string[] {
  const settings = readSettingNames();
  return [...openEnvFiles(dir, env).flatMap((file) => envFileWarnings(file, settings)), ...environmentWarnings(env, settings)];
}

/** What readSettingWarnings says, from what it read: `settings` are the names of every setting. */
export function settingWarnings({ files, env, config, settings }: {
  readonly files: readonly EnvFile[];
  readonly env: Env;
  readonly config: Pick<Config, 'corsOrigins' | 'posterApi'>;
  readonly settings: ReadonlySet<string>;
}): string[] {
  return [
    ...files.flatMap((file) => envFileWarnings(file, settings)),
    ...environmentWarnings(env, settings),
    ...(config.corsOrigins.kind !== 'off' && !config.posterApi
      ? ['warning: CORS_ORIGINS is set and POSTER_API is off: CORS_ORIGINS is for the poster API only, so it does nothing']
      : []),
  ];
}

/** One line for the lines of `file` that set nothing, then one for each name there that is no setting. */
function envFileWarnings(file: EnvFile, settings: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  const bad = file.notSettings;
  if (bad.length === 1) lines.push(`warning: ${file.name} line ${bad[0]} is not NAME=value, so it does nothing`);
  if (bad.length > 1) lines.push(`warning: ${file.name} lines ${bad.join(', ')} are not NAME=value, so they do nothing`);
  for (const { name, line } of file.entries) {
    if (settings.has(name)) continue;
    const near = nearSettingName(name, settings);
    lines.push(`warning: ${file.name} line ${line}: ${name} is not a setting, so it does nothing${near === undefined ? '' : `; did you mean ${near}?`}`);
  }
  return lines;
}

/**
 * A line for each environment variable that is no setting yet looks like one misspelled. The
 * environment holds every program's variables (PATH, HOME, NODE_OPTIONS, npm_config_…): only
 * one written like a setting and near one is named, or one equal to a setting but for case.
 */
function environmentWarnings(env: Env, settings: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (settings.has(name) || !(looksLikeASetting(name) || settings.has(name.toUpperCase()))) continue;
    const near = nearSettingName(name, settings);
    if (near !== undefined) lines.push(`warning: the environment variable ${name} is not a setting; did you mean ${near}?`);
  }
  return lines;
}

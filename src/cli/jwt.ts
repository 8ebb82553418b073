#!/usr/bin/env node
/**
 * `jwt`: manage the service's ES512 key pair and tokens, with the service's settings
 * (`.env` files and environment of the working directory).
 *
 *   jwt generate-keypair [--overwrite]
 *   jwt token <username> [--ttl SECONDS]   (claims sub and username, both <username>)
 *   jwt verify <token>      (needs JWT_PUBLIC_KEY only: no private key, no passphrase)
 *
 * Exit codes: 0 done, 1 refused (existing keys, invalid token, unusable key), 2 bad usage (a
 * username over MAX_USERNAME_BYTES included: the service would refuse its token).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, readSettingNameWarnings, type Config } from '../config/index.js';
import { runIfMain } from '../util/main-module.js';
import { ensurePassphrase, InvalidToken, JwtKeyError, issueToken, loadKeyPair, loadPublicKey, MAX_USERNAME_BYTES, usernameRefusal, verifyToken, writeKeyPair } from '../jwt/index.js';
import { errorCode } from '../util/errno.js';

const USAGE = `usage:
  jwt generate-keypair [--overwrite]   write a new P-521 pair to JWT_SECRET_KEY / JWT_PUBLIC_KEY
  jwt token <username> [--ttl SECONDS] print a token for <username> (at most ${MAX_USERNAME_BYTES} bytes; ttl at most, and by default, JWT_TOKEN_TTL)
  jwt verify <token>                   print the claims of a valid token, or why it is refused (JWT_PUBLIC_KEY only)`;

class UsageError extends Error {}

/** Runs the CLI; `settings` says where the env files are and what the environment is (tests). */
export async function runJwtCli(
  argv: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
  settings: { dir?: string; env?: Record<string, string | undefined> } = {},
): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { overwrite: { type: 'boolean' }, ttl: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      out(USAGE);
      return 0;
    }
    const [command, argument, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    const config = loadConfig(command === 'generate-keypair' ? withoutPosterApi(settings) : settings);
    for (const line of readSettingNameWarnings({ dir: settings.dir ?? process.cwd(), env: settings.env ?? process.env })) err(line);
    switch (command) {
      case 'generate-keypair':
        return generate(config, values.overwrite === true, out);
      case 'token':
        if (!argument) throw new UsageError('jwt token needs a <username>');
        return await token(config, argument, values.ttl, out, err);
      case 'verify':
        if (!argument) throw new UsageError('jwt verify needs a <token>');
        return await verify(config, argument, out, err);
      default:
        throw new UsageError(command ? `unknown command ${JSON.stringify(command)}` : 'no command');
    }
  } catch (e) {
    if (e instanceof UsageError || errorCode(e)?.startsWith('ERR_PARSE_ARGS')) {
      err(`jwt: ${(e as Error).message}\n${USAGE}`);
      return 2;
    }
    if (e instanceof ConfigError || e instanceof JwtKeyError) {
      err(`jwt: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

/**
 * The settings as `generate-keypair` reads them: with POSTER_API=1 the settings check the file
 * JWT_PUBLIC_KEY names, and this command is how that file comes to be (or is replaced when broken).
 * The real environment wins over every env file, so POSTER_API=0 there turns the check off.
 */
function withoutPosterApi(settings: { dir?: string; env?: Record<string, string | undefined> }) {
  return { ...settings, env: { ...(settings.env ?? process.env), POSTER_API: '0' } };
}

function generate(config: Config, overwrite: boolean, out: (line: string) => void): number {
  const passphrase = ensurePassphrase(config, out);
  writeKeyPair({ secretKeyPath: config.jwt.secretKeyPath, publicKeyPath: config.jwt.publicKeyPath }, passphrase, overwrite);
  out(`wrote ${config.jwt.secretKeyPath} and ${config.jwt.publicKeyPath}`);
  return 0;
}

/** The pair, for issuing: the private key must be decrypted, so JWT_PASSPHRASE is needed here. */
function keys(config: Config) {
  if (config.secrets.JWT_PASSPHRASE === '') throw new JwtKeyError('JWT_PASSPHRASE is not set; it is needed to decrypt JWT_SECRET_KEY');
  return loadKeyPair({ secretKeyPath: config.jwt.secretKeyPath, publicKeyPath: config.jwt.publicKeyPath }, config.secrets.JWT_PASSPHRASE);
}

async function token(config: Config, username: string, ttl: string | undefined, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  // Before the key is read: a token the service would refuse is never issued, and one line says why.
  const refusal = usernameRefusal(username);
  if (refusal !== undefined) {
    err(`jwt: ${refusal}`);
    return 2;
  }
  if (ttl !== undefined && !/^[1-9]\d{0,8}$/.test(ttl)) throw new UsageError('--ttl must be a positive whole number of seconds');
  const seconds = ttl === undefined ? config.jwt.tokenTtl : Number(ttl);
  // The service refuses longer-lived tokens (docs/posters-and-api.md, "The poster API"), so never issue one.
  if (seconds > config.jwt.tokenTtl) throw new UsageError(`--ttl must be at most JWT_TOKEN_TTL (${config.jwt.tokenTtl} seconds)`);
  out(await issueToken(keys(config).privateKey, username, seconds, Date.now()));
  return 0;
}

async function verify(config: Config, jwt: string, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  try {
    // Verifying needs the public half alone: a host holding only public.pem can verify.
    const publicKey = loadPublicKey(config.jwt.publicKeyPath);
    out(JSON.stringify(await verifyToken(jwt, publicKey, config.jwt.clockSkew, Date.now(), config.jwt.tokenTtl)));
    return 0;
  } catch (e) {
    if (e instanceof InvalidToken) {
      err(`jwt: refused: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

runIfMain(import.meta.url, 'jwt', runJwtCli);

/**
 * Where the service's key pair comes from: loaded from the configured files, or, in dev only,
 * generated on first use (with a generated passphrase saved to `.env.local` if none is set).
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { JwtKeyError, loadKeyPair, writeKeyPair, type KeyPair } from '../jwt.js';

/** A passphrase for a new dev key pair: the configured one, or a new one saved to `.env.local`. */
export function ensurePassphrase(config: Config, say: (line: string) => void): string {
  if (config.secrets.JWT_PASSPHRASE !== '') return config.secrets.JWT_PASSPHRASE;
  const passphrase = randomBytes(24).toString('base64url');
  appendFileSync(join(config.projectDir, '.env.local'), `\nJWT_PASSPHRASE=${passphrase}\n`, { mode: 0o600 });
  say(`jwt: generated a passphrase for the key pair and saved it as JWT_PASSPHRASE in .env.local`);
  return passphrase;
}

/** The key pair for protected routes; a missing pair is generated in dev, required elsewhere. */
export function obtainKeyPair(config: Config, say: (line: string) => void): KeyPair {
  const paths = { secretKeyPath: config.jwt.secretKeyPath, publicKeyPath: config.jwt.publicKeyPath };
  const missing = !existsSync(paths.secretKeyPath) && !existsSync(paths.publicKeyPath);
  if (missing && config.appEnv === 'dev') {
    const passphrase = ensurePassphrase(config, say);
    writeKeyPair(paths, passphrase, false);
    say(`jwt: generated a P-521 key pair in ${paths.secretKeyPath} and ${paths.publicKeyPath}`);
    return loadKeyPair(paths, passphrase);
  }
  if (config.secrets.JWT_PASSPHRASE === '') throw new JwtKeyError('JWT_PASSPHRASE is not set; it is needed to decrypt JWT_SECRET_KEY');
  return loadKeyPair(paths, config.secrets.JWT_PASSPHRASE);
}

/**
 * The ES512 key pair, in one place: generating and writing it, loading and checking it (readable,
 * the right passphrase, P-521, matching halves), and the public key the service verifies tokens
 * with (the configured file alone, or, in dev only, from a pair generated on first use, with a
 * generated passphrase saved to `.env.local` if none is set). Keys are node:crypto's alone; the
 * files are read as the settings check them (`readJwtKeyFile`, `readJwtPublicKey`).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { devGeneratesKeyPair, p521Problem, readJwtKeyFile, readJwtPublicKey, type Config, type JwtKeyPaths } from '../config/index.js';

/** A key file or passphrase that cannot be used; the message names the file or setting only. */
export class JwtKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwtKeyError';
  }
}

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

export type KeyPaths = JwtKeyPaths;

/** A fresh P-521 pair as PEM: encrypted PKCS#8 (AES-256) and SPKI. */
export function generateKeyPairPem(passphrase: string): { privatePem: string; publicPem: string } {
  if (passphrase === '') throw new JwtKeyError('JWT_PASSPHRASE must not be empty to encrypt the private key');
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-521',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

/** Writes a new pair; refuses to replace existing files unless `overwrite`. */
export function writeKeyPair(paths: KeyPaths, passphrase: string, overwrite: boolean): void {
  for (const path of [paths.secretKeyPath, paths.publicKeyPath]) {
    if (!overwrite && existsSync(path)) throw new JwtKeyError(`${path} exists; use --overwrite to replace the key pair`);
  }
  const { privatePem, publicPem } = generateKeyPairPem(passphrase);
  mkdirSync(dirname(paths.secretKeyPath), { recursive: true });
  mkdirSync(dirname(paths.publicKeyPath), { recursive: true });
  writeFileSync(paths.secretKeyPath, privatePem, { mode: 0o600 });
  writeFileSync(paths.publicKeyPath, publicPem, { mode: 0o644 });
}

/**
 * The public half alone, checked (a regular file of at most MAX_JWT_KEY_BYTES, a public key in
 * PEM, P-521): all that verifying a token needs.
 */
export function loadPublicKey(publicKeyPath: string): KeyObject {
  const read = readJwtPublicKey(publicKeyPath);
  if (!read.ok) throw new JwtKeyError(`JWT_PUBLIC_KEY ${read.problem}`);
  return read.value;
}

/** Loads and checks the pair: readable files, the right passphrase, P-521, matching halves. */
export function loadKeyPair(paths: KeyPaths, passphrase: string): KeyPair {
  const privatePem = readJwtKeyFile(paths.secretKeyPath);
  if (!privatePem.ok) throw new JwtKeyError(`JWT_SECRET_KEY ${privatePem.problem}`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: privatePem.value, format: 'pem', passphrase });
  } catch {
    // Whatever the cause, never repeat the passphrase.
    throw new JwtKeyError(`JWT_SECRET_KEY ${paths.secretKeyPath} cannot be decrypted with JWT_PASSPHRASE (wrong passphrase or not an encrypted PKCS#8 key)`);
  }
  const problem = p521Problem(privateKey, paths.secretKeyPath);
  if (problem !== undefined) throw new JwtKeyError(`JWT_SECRET_KEY ${problem}`);
  const publicKey = loadPublicKey(paths.publicKeyPath);
  const derived = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  if (!derived.equals(publicKey.export({ type: 'spki', format: 'der' }))) {
    throw new JwtKeyError(`JWT_PUBLIC_KEY ${paths.publicKeyPath} does not belong to JWT_SECRET_KEY ${paths.secretKeyPath}`);
  }
  return { privateKey, publicKey };
}

/** A passphrase for a new dev key pair: the configured one, or a new one saved to `.env.local`. */
export function ensurePassphrase(config: Config, say: (line: string) => void): string {
  if (config.secrets.JWT_PASSPHRASE !== '') return config.secrets.JWT_PASSPHRASE;
  const passphrase = randomBytes(24).toString('base64url');
  appendFileSync(join(config.projectDir, '.env.local'), `\nJWT_PASSPHRASE=${passphrase}\n`, { mode: 0o600 });
  say(`jwt: generated a passphrase for the key pair and saved it as JWT_PASSPHRASE in .env.local`);
  return passphrase;
}

/**
 * The public key protected routes verify tokens with: JWT_PUBLIC_KEY alone, no private key and no
 * passphrase (the settings checked it already; a file broken since then stops the start). In dev,
 * when neither key file exists, the pair is generated first, so a fresh checkout starts as is.
 */
export function obtainPublicKey(config: Config, say: (line: string) => void): KeyObject {
  const paths = { secretKeyPath: config.jwt.secretKeyPath, publicKeyPath: config.jwt.publicKeyPath };
  if (devGeneratesKeyPair(config.appEnv, paths)) {
    writeKeyPair(paths, ensurePassphrase(config, say), false);
    say(`jwt: generated a P-521 key pair in ${paths.secretKeyPath} and ${paths.publicKeyPath}`);
  }
  return loadPublicKey(paths.publicKeyPath);
}

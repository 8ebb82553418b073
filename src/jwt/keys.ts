/**
 * The ES512 key pair, in one place: generating and writing it, loading and checking it (readable,
 * the right passphrase, P-521, matching halves), and where the service's pair comes from (the
 * configured files, or, in dev only, a pair generated on first use, with a generated passphrase
 * saved to `.env.local` if none is set). Keys are node:crypto's alone.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config/index.js';
import { errorCode } from '../util/errno.js';

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

export interface KeyPaths {
  readonly secretKeyPath: string;
  readonly publicKeyPath: string;
}

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

function readPem(path: string, setting: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new JwtKeyError(`${setting} ${path} cannot be read (${errorCode(err) ?? 'error'})`);
  }
}

function checkP521(key: KeyObject, setting: string, path: string): void {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'secp521r1') {
    throw new JwtKeyError(`${setting} ${path} is not a P-521 key, which ES512 needs`);
  }
}

/** The public half alone, checked (readable, PEM, P-521): all that verifying a token needs. */
export function loadPublicKey(publicKeyPath: string): KeyObject {
  const publicPem = readPem(publicKeyPath, 'JWT_PUBLIC_KEY');
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: publicPem, format: 'pem' });
  } catch {
    throw new JwtKeyError(`JWT_PUBLIC_KEY ${publicKeyPath} is not a public key in PEM`);
  }
  checkP521(publicKey, 'JWT_PUBLIC_KEY', publicKeyPath);
  return publicKey;
}

/** Loads and checks the pair: readable files, the right passphrase, P-521, matching halves. */
export function loadKeyPair(paths: KeyPaths, passphrase: string): KeyPair {
  const privatePem = readPem(paths.secretKeyPath, 'JWT_SECRET_KEY');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: privatePem, format: 'pem', passphrase });
  } catch {
    // Whatever the cause, never repeat the passphrase.
    throw new JwtKeyError(`JWT_SECRET_KEY ${paths.secretKeyPath} cannot be decrypted with JWT_PASSPHRASE (wrong passphrase or not an encrypted PKCS#8 key)`);
  }
  checkP521(privateKey, 'JWT_SECRET_KEY', paths.secretKeyPath);
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

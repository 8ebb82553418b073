/**
 * The ES512 key files the operator names (JWT_SECRET_KEY, JWT_PUBLIC_KEY), read as every file an
 * operator points at is: a regular file of at most MAX_JWT_KEY_BYTES. The public key is checked
 * here, below jwt/, because the settings check it with the others when the poster API is on (one
 * line names every bad setting), and jwt/ reads it the same way when the service starts or
 * `jwt verify` runs. Problems are one line each, starting with the file's path; never the key's text.
 */
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { errorCode } from '../util/errno.js';
import { FileRefused, readRegularFile } from '../util/regular-file.js';
import { failed, succeeded, type Result } from '../util/result.js';

/** The most a key file may hold: a P-521 key in PEM is under 1 KiB, encrypted or not. */
export const MAX_JWT_KEY_BYTES = 16 * 1024;

/** Where the pair lives. */
export interface JwtKeyPaths {
  readonly secretKeyPath: string;
  readonly publicKeyPath: string;
}

/** The text of a key file, or why it was not read: `/srv/config/jwt/public.pem: no such file`. */
export function readJwtKeyFile(path: string): Result<string, string> {
  try {
    return succeeded(readRegularFile(path, MAX_JWT_KEY_BYTES).bytes.toString('utf8'));
  } catch (err) {
    if (err instanceof FileRefused) return failed(err.message);
    const code = errorCode(err);
    if (code === undefined) throw err;
    return failed(`${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}`);
  }
}

/** Why `key`, read from `path`, cannot sign or verify ES512; undefined when it can. */
export function p521Problem(key: KeyObject, path: string): string | undefined {
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'secp521r1') return undefined;
  return `${path} is not a P-521 key, which ES512 needs`;
}

/**
 * The public key in the file at `path`, checked: a regular file of at most MAX_JWT_KEY_BYTES, a
 * public key in PEM (a private key is refused: node:crypto would take its public half, and a host
 * that only verifies should not hold it), on P-521.
 */
export function readJwtPublicKey(path: string): Result<KeyObject, string> {
  const text = readJwtKeyFile(path);
  if (!text.ok) return text;
  if (text.value.includes('PRIVATE KEY-----')) return failed(`${path} holds a private key; it should hold the public key alone`);
  let key: KeyObject;
  try {
    // Loaded here, not imported: the settings module imports this one, and a service without the
    // poster API starts without node:crypto (test/cold-start.test.ts).
    key = process.getBuiltinModule('node:crypto').createPublicKey({ key: text.value, format: 'pem' });
  } catch {
    return failed(`${path} is not a public key in PEM`);
  }
  const problem = p521Problem(key, path);
  return problem === undefined ? succeeded(key) : failed(problem);
}

/**
 * Whether the service generates the pair when the poster API starts: in dev only, and only when
 * neither file exists (one half alone is a mistake to report, not a pair to replace).
 */
export function devGeneratesKeyPair(appEnv: string, paths: JwtKeyPaths): boolean {
  return appEnv === 'dev' && !existsSync(paths.secretKeyPath) && !existsSync(paths.publicKeyPath);
}

/**
 * The service's certificate and private key as the operator names them (TLS_CERT, TLS_KEY,
 * TLS_KEY_PASSPHRASE): read with a size cap, parsed, and checked against each other and the
 * clock, so that a bad pair is refused with every reason at once, at start or on a reload,
 * instead of failing the first handshake. Messages name files, settings, serials and dates;
 * never the key's text nor the passphrase.
 */
import type { KeyObject, X509Certificate } from 'node:crypto';
import { errorCode } from '../util/errno.js';
import { failed, succeeded, type Result } from '../util/result.js';
import { FileRefused, readRegularFile } from '../util/regular-file.js';

/**
 * node:crypto, loaded when a pair is first read: the settings module imports this one, and a
 * service without TLS (or the poster API) starts without node:crypto at all (test/cold-start.test.ts).
 */
const crypto = () => process.getBuiltinModule('node:crypto');

/** The most either file may hold: a chain of a few certificates is a few KiB. */
export const MAX_PEM_BYTES = 1024 * 1024;
/** A certificate that expires within this many days of now is reported, not refused. */
export const EXPIRY_WARNING_DAYS = 14;

const DAY_MS = 24 * 60 * 60 * 1000;
const BEGIN_CERTIFICATE = '-----BEGIN CERTIFICATE-----';
const END_CERTIFICATE = '-----END CERTIFICATE-----';
// PKCS#8 (`openssl pkcs8 -topk8`) and the older OpenSSL PEM encryption (`openssl ec -aes256`).
const ENCRYPTED_KEY_MARKS: readonly string[] = ['-----BEGIN ENCRYPTED PRIVATE KEY-----', 'Proc-Type: 4,ENCRYPTED'];

/** Where the pair lives and how to open the key. */
export interface TlsFiles {
  readonly certPath: string;
  readonly keyPath: string;
  /** '' when none. */
  readonly passphrase: string;
}

/**
 * A checked pair, ready for tls.createSecureContext / server.setSecureContext: `cert` as it is,
 * `key` exported as PEM, since neither takes a KeyObject (Node 22 and 24 throw ERR_INVALID_ARG_TYPE).
 */
export interface TlsCredentials {
  /** The PEM text of the chain, as read: the leaf first. */
  readonly cert: string;
  /** The decrypted private key: `key.export({ type: 'pkcs8', format: 'pem' })` for node:tls. */
  readonly key: KeyObject;
  /** The leaf certificate's serial number, in hex as X509Certificate gives it (`1001`). */
  readonly serial: string;
  /** The leaf's notAfter. */
  readonly validTo: Date;
  /** Short, for log lines: the leaf's CN, else its first subjectAltName. */
  readonly subject: string;
}

export type TlsSetting = 'TLS_CERT' | 'TLS_KEY' | 'TLS_KEY_PASSPHRASE';

/** Why a pair cannot be used: the setting to fix and one line that says why. */
export interface TlsProblem {
  readonly setting: TlsSetting;
  readonly message: string;
}

/** What readTlsCredentials found: the pair (and what the operator should know), or every problem. */
export type TlsReading =
  | { readonly ok: true; readonly credentials: TlsCredentials; readonly warnings: string[] }
  | { readonly ok: false; readonly problems: TlsProblem[] };

/**
 * Reads and checks the pair at `now` (ms since the epoch): either credentials (with warnings)
 * or every problem found, both files' at once (both files missing is two problems).
 */
export function readTlsCredentials(files: TlsFiles, now: number): TlsReading {
  const certText = readPemFile('TLS_CERT', files.certPath);
  const keyText = readPemFile('TLS_KEY', files.keyPath);
  const leaf = certText.ok ? parseLeaf(certText.value, files.certPath) : certText;
  const key = keyText.ok ? openKey(keyText.value, files) : keyText;
  const problems = [
    ...(leaf.ok ? validityProblems(leaf.value, now) : [leaf.problem]),
    ...(key.ok ? [] : [key.problem]),
    ...(leaf.ok && key.ok ? matchProblems(leaf.value, key.value, files.keyPath) : []),
  ];
  if (problems.length > 0 || !certText.ok || !leaf.ok || !key.ok) return { ok: false, problems };
  return {
    ok: true,
    credentials: { cert: certText.value, key: key.value, serial: leaf.value.serialNumber, validTo: leaf.value.validToDate, subject: shortSubject(leaf.value) },
    warnings: expiryWarnings(leaf.value, now),
  };
}

/** The text of a PEM file, or why it was not read (missing, not a regular file, too large). */
function readPemFile(setting: 'TLS_CERT' | 'TLS_KEY', path: string): Result<string, TlsProblem> {
  try {
    return succeeded(readRegularFile(path, MAX_PEM_BYTES).bytes.toString('utf8'));
  } catch (err) {
    if (err instanceof FileRefused) return failed({ setting, message: `${setting} ${err.message}` });
    const code = errorCode(err);
    if (code === undefined) throw err;
    return failed({ setting, message: `${setting} ${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}` });
  }
}

/** The leaf: the first certificate of the chain, once every certificate of it parses. */
function parseLeaf(text: string, path: string): Result<X509Certificate, TlsProblem> {
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) return failed({ setting: 'TLS_CERT', message: `TLS_CERT ${path} holds no PEM certificate` });
  const parsed = blocks.map(parseCertificate);
  const broken = parsed.flatMap((certificate, i) => (certificate ? [] : [i + 1]));
  if (broken.length > 0) {
    const which = broken.length === 1 ? `certificate ${broken[0]}` : `certificates ${broken.join(', ')}`;
    return failed({ setting: 'TLS_CERT', message: `TLS_CERT ${path}: ${which} of ${blocks.length} cannot be parsed` });
  }
  return succeeded(parsed[0]!);
}

/** Each `BEGIN CERTIFICATE` … `END CERTIFICATE` block, in order; an unterminated one runs to the end. */
function certificateBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (let start = text.indexOf(BEGIN_CERTIFICATE); start !== -1; ) {
    const end = text.indexOf(END_CERTIFICATE, start + BEGIN_CERTIFICATE.length);
    if (end === -1) {
      blocks.push(text.slice(start));
      break;
    }
    blocks.push(text.slice(start, end + END_CERTIFICATE.length));
    start = text.indexOf(BEGIN_CERTIFICATE, end + END_CERTIFICATE.length);
  }
  return blocks;
}

function parseCertificate(block: string): X509Certificate | undefined {
  try {
    return new (crypto().X509Certificate)(block);
  } catch {
    return undefined;
  }
}

/**
 * The private key, decrypted. Whether it is encrypted is read from its PEM label: OpenSSL's
 * own errors do not tell a missing passphrase, a wrong one and a damaged key apart reliably.
 */
function openKey(text: string, files: TlsFiles): Result<KeyObject, TlsProblem> {
  const encrypted = ENCRYPTED_KEY_MARKS.some((mark) => text.includes(mark));
  if (encrypted && files.passphrase === '') {
    return failed({ setting: 'TLS_KEY_PASSPHRASE', message: 'TLS_KEY is encrypted and TLS_KEY_PASSPHRASE is not set' });
  }
  try {
    // A passphrase given for a key that is not encrypted is not used, and not an error.
    return succeeded(crypto().createPrivateKey({ key: text, format: 'pem', ...(files.passphrase === '' ? {} : { passphrase: files.passphrase }) }));
  } catch {
    if (encrypted) return failed({ setting: 'TLS_KEY_PASSPHRASE', message: 'TLS_KEY_PASSPHRASE does not open TLS_KEY' });
    return failed({ setting: 'TLS_KEY', message: `TLS_KEY ${files.keyPath} holds no PEM private key that can be read` });
  }
}

/** A key that is not the leaf's: the server could not prove it holds the certificate. */
function matchProblems(leaf: X509Certificate, key: KeyObject, keyPath: string): TlsProblem[] {
  if (leaf.checkPrivateKey(key)) return [];
  return [{ setting: 'TLS_KEY', message: `TLS_KEY ${keyPath} is not the key of the TLS_CERT certificate (serial ${leaf.serialNumber})` }];
}

/** The leaf outside its validity at `now`; notBefore and notAfter are both inside it (RFC 5280, 4.1.2.5). */
function validityProblems(leaf: X509Certificate, now: number): TlsProblem[] {
  if (now < leaf.validFromDate.getTime()) {
    return [{ setting: 'TLS_CERT', message: `TLS_CERT certificate (serial ${leaf.serialNumber}) is not valid before ${leaf.validFromDate.toISOString()}` }];
  }
  if (now > leaf.validToDate.getTime()) {
    return [{ setting: 'TLS_CERT', message: `TLS_CERT certificate (serial ${leaf.serialNumber}) expired on ${leaf.validToDate.toISOString()}` }];
  }
  return [];
}

/** A leaf that expires within EXPIRY_WARNING_DAYS of `now`, counted in whole days left. */
function expiryWarnings(leaf: X509Certificate, now: number): string[] {
  const left = leaf.validToDate.getTime() - now;
  if (left > EXPIRY_WARNING_DAYS * DAY_MS) return [];
  const days = Math.floor(left / DAY_MS);
  const when = days === 0 ? 'in less than a day' : days === 1 ? 'in 1 day' : `in ${days} days`;
  return [`TLS_CERT expires on ${leaf.validToDate.toISOString()}, ${when}`];
}

/** The leaf's CN, else its first subjectAltName without its kind (`DNS:`), else its whole subject. */
function shortSubject(leaf: X509Certificate): string {
  const commonName = leaf.subject.split('\n').find((part) => part.startsWith('CN='));
  if (commonName !== undefined && commonName.length > 3) return commonName.slice(3);
  const firstName = leaf.subjectAltName?.split(', ')[0];
  if (firstName !== undefined && firstName !== '') return firstName.slice(firstName.indexOf(':') + 1);
  return leaf.subject === '' ? '(no name)' : leaf.subject.replaceAll('\n', ', ');
}

/**
 * The service under fuzz: a real program (src/server.ts through tsx, or the built dist/server.js
 * with SERVICE_TARGET=dist: see ../helpers/target.ts) with a temp PUBLIC_DIR
 * holding a few files of every kind the static handler must tell apart, a temp LOG_DIR with the
 * real daily file sink, configured secrets of known random values, and the poster API on with
 * its own key pair.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { SignJWT } from 'jose';
import { send } from '../helpers/http.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';
import type { GeneratorEnv } from './headers.js';
import { Random } from './rng.js';

export type Mode = 'prod' | 'dev';

export interface FuzzService {
  readonly mode: Mode;
  readonly port: number;
  readonly logDir: string;
  readonly secrets: readonly string[];
  readonly env: GeneratorEnv;
  readonly program: ServerProgram;
}

const SECRET_NAMES = ['APP_ID', 'APP_KEY', 'ACCESS_TOKEN', 'APP_SECRET', 'JWT_PASSPHRASE', 'BROKER_PASSWORD'] as const;
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A temp directory removed after the test file. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * PUBLIC_DIR: a small text file, a 200 KiB file, a subdirectory, and things never to be served
 * (a dotfile, a dot-directory, a symlink out of the directory), the last three holding a secret
 * so that serving one shows up as a leak.
 */
function writePublicDir(root: string, secret: string, r: Random): string {
  const dir = join(root, 'public');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, 'hello.txt'), 'hello, fuzz\n');
  writeFileSync(join(dir, 'big.bin'), Buffer.from(Array.from({ length: 200 * 1024 }, () => r.int(0, 255))));
  writeFileSync(join(dir, 'sub', 'page.html'), '<!doctype html><title>sub</title><p>sub page</p>\n');
  writeFileSync(join(dir, 'sub', 'data.json'), '{"ok":true}\n');
  writeFileSync(join(dir, '.hidden'), `secret=${secret}\n`);
  writeFileSync(join(dir, 'sub', '.env'), `APP_SECRET=${secret}\n`);
  writeFileSync(join(dir, '.git', 'config'), `[remote] token=${secret}\n`);
  writeFileSync(join(root, 'outside.txt'), `outside ${secret}\n`);
  symlinkSync(join(root, 'outside.txt'), join(dir, 'link.txt'));
  return dir;
}

function writeKeyPair(root: string, passphrase: string): { privateKey: KeyObject; secretKeyPath: string; publicKeyPath: string } {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-521' });
  const secretKeyPath = join(root, 'private.pem');
  const publicKeyPath = join(root, 'public.pem');
  writeFileSync(secretKeyPath, pair.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }));
  writeFileSync(publicKeyPath, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKey: pair.privateKey, secretKeyPath, publicKeyPath };
}

/**
 * Starts the program in `mode` and learns what the generator needs from it. `nodeArgs` go to the
 * program's node (the deep pipelines hold V8's young generation small, see there).
 */
export async function startFuzzService(mode: Mode, seed: number, excludedMethods: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<FuzzService> {
  const r = new Random(seed, -1);
  const root = tempDir(`fuzz-${mode}-`);
  const secretValues = Object.fromEntries(SECRET_NAMES.map((name) => [name, `fz${r.text(ALNUM, 22)}`])) as Record<(typeof SECRET_NAMES)[number], string>;
  const publicDir = writePublicDir(root, secretValues.APP_SECRET, r);
  const keys = writeKeyPair(root, secretValues.JWT_PASSPHRASE);
  const logDir = join(root, 'log');
  const program = runServerProgram({
    ...secretValues,
    APP_ENV: mode,
    APP_DEBUG: mode === 'dev' ? '1' : '0',
    PUBLIC_DIR: publicDir,
    LOG_DIR: logDir,
    POSTER_API: '1',
    JWT_SECRET_KEY: keys.secretKeyPath,
    JWT_PUBLIC_KEY: keys.publicKeyPath,
    // Prod trusts the loopback peer, so X-Forwarded-For and -Proto are honoured there.
    ...(mode === 'prod' ? { TRUSTED_PROXIES: 'REMOTE_ADDR,private_ranges' } : {}),
  }, nodeArgs);
  const url = await program.listening;
  const now = Math.floor(Date.now() / 1000);
  const validToken = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES512' })
    .setSubject('fuzz')
    .setIssuedAt(now)
    .setExpirationTime(now + 3000)
    .sign(keys.privateKey);
  const probe = await send(url, 'HEAD', '/static/hello.txt');
  const etag = String(probe.headers.etag ?? '"0-0"');
  const lastModified = String(probe.headers['last-modified'] ?? 'Thu, 01 Jan 1970 00:00:00 GMT');
  const secrets = Object.values(secretValues);
  return { mode, port: Number(new URL(url).port), logDir, secrets, env: { secrets, validToken, etag, lastModified, excludedMethods }, program };
}

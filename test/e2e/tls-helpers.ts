/**
 * HTTPS for the e2e tier: a CA of the test's own and two `localhost` leaves it signed (another
 * key and serial each: a renewal), made with the openssl command in a temp dir; the service
 * started on a pair of files that can be replaced under it; curl, s_client and a held HTTP/1.1
 * connection as clients. Needs openssl and curl; fails, never skips, without them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { runProgram } from '../helpers/programs.js';
import { runServerProgram, type ServerProgram } from '../helpers/service.js';

/** A leaf certificate for `localhost` and 127.0.0.1, signed by the test's CA. */
export interface Leaf {
  /** The leaf followed by the CA: what TLS_CERT names. */
  readonly chain: string;
  readonly key: string;
  /** As `openssl x509 -serial` prints it: upper-case hex. */
  readonly serial: string;
  /** Base64 of the SHA-256 of its SubjectPublicKeyInfo, as Chromium's --ignore-certificate-errors-spki-list takes it. */
  readonly spkiSha256: string;
}

/** The test's CA (`ca`: its certificate's path) and the two leaves it signed. */
export interface TestPki {
  readonly ca: string;
  readonly first: Leaf;
  readonly second: Leaf;
  /** The temp dir everything is in (removed after the test file). */
  readonly dir: string;
}

/** Extensions of `openssl req` and `openssl x509`: a CA that signs, and a server leaf for localhost. */
const OPENSSL_CONFIG = `[req]
distinguished_name = subject
[subject]
[ca]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

/** Long enough that the service never warns of an expiry (it does 14 days before). */
const VALID_DAYS = '90';
/** Two serials of an even number of hex digits and no leading zero: openssl, Node and the service's log write them alike. */
const SERIALS = ['7E570001', '7E570002'] as const;

/** Runs openssl; its stdout, or a failed assertion with its stderr. */
export async function openssl(args: readonly string[], input?: Uint8Array | string): Promise<Buffer> {
  const result = await runProgram('openssl', args, input);
  assert.equal(result.code, 0, `openssl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A new EC P-256 key in `path`. */
async function writeKey(path: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path]);
}

/** A CA of the test's own and two leaves it signed, in a temp dir removed after the test file. */
export async function createTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-e2e-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, 'openssl.cnf');
  writeFileSync(config, OPENSSL_CONFIG);
  const ca = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca.key');
  await writeKey(caKey);
  await openssl(['req', '-x509', '-new', '-config', config, '-extensions', 'ca', '-key', caKey, '-subj', '/CN=problem-service e2e test CA', '-days', VALID_DAYS, '-out', ca]);
  const leaf = async (name: string, serial: string): Promise<Leaf> => {
    const key = join(dir, `${name}.key`);
    const cert = join(dir, `${name}.pem`);
    await writeKey(key);
    const request = await openssl(['req', '-new', '-config', config, '-key', key, '-subj', '/CN=localhost']);
    await openssl(
      ['x509', '-req', '-CA', ca, '-CAkey', caKey, '-set_serial', `0x${serial}`, '-days', VALID_DAYS, '-extfile', config, '-extensions', 'leaf', '-out', cert],
      request,
    );
    await openssl(['verify', '-CAfile', ca, cert]);
    const chain = join(dir, `${name}-chain.pem`);
    writeFileSync(chain, Buffer.concat([await openssl(['x509', '-in', cert]), await openssl(['x509', '-in', ca])]));
    const printed = (await openssl(['x509', '-in', cert, '-noout', '-serial'])).toString('utf8').trim();
    assert.equal(printed, `serial=${serial}`);
    return { chain, key, serial, spkiSha256: await spkiSha256(cert) };
  };
  return { ca, first: await leaf('first', SERIALS[0]), second: await leaf('second', SERIALS[1]), dir };
}

/** Base64 of the SHA-256 of a certificate's SubjectPublicKeyInfo (DER), computed by openssl alone. */
async function spkiSha256(cert: string): Promise<string> {
  const publicKey = await openssl(['x509', '-in', cert, '-pubkey', '-noout']);
  const der = await openssl(['pkey', '-pubin', '-outform', 'der'], publicKey);
  const digest = await openssl(['dgst', '-sha256', '-binary'], der);
  return (await openssl(['base64', '-A'], digest)).toString('utf8').trim();
}

/** The files TLS_CERT and TLS_KEY name, which a test replaces while the service runs. */
export interface PairFiles {
  readonly cert: string;
  readonly key: string;
}

/** A dir of its own (inside the PKI's) holding `leaf` as cert.pem and key.pem. */
export function pairFiles(pki: TestPki, leaf: Leaf): PairFiles {
  const dir = mkdtempSync(join(pki.dir, 'served-'));
  const files = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  replacePair(files, leaf.chain, leaf.key);
  return files;
}

/**
 * Puts a certificate and a key in place as an ACME client does: each written as a new file and
 * renamed over the old one, so the service never reads half a file.
 */
export function replacePair(files: PairFiles, chain: string, key: string): void {
  copyFileSync(chain, `${files.cert}.new`);
  copyFileSync(key, `${files.key}.new`);
  renameSync(`${files.cert}.new`, files.cert);
  renameSync(`${files.key}.new`, files.key);
}

/** The service over HTTPS and its port. */
export interface HttpsService {
  readonly program: ServerProgram;
  /** `https://127.0.0.1:<port>`, from its first line. */
  readonly url: string;
  readonly port: number;
}

/**
 * The server program in production mode on `files`, with `settings` on top; stopped with SIGTERM
 * after the test (or file) unless the test stopped it. Call it in a test or at a file's top, not
 * in a `before` hook: the stop registered there would run as soon as the hook ends.
 */
export async function startHttpsService(files: PairFiles, settings: Record<string, string> = {}): Promise<HttpsService> {
  const program = runServerProgram({ APP_ENV: 'prod', APP_DEBUG: '0', TLS_CERT: files.cert, TLS_KEY: files.key, ...settings });
  after(async () => {
    if (program.child.exitCode === null && program.child.signalCode === null) await stopService(program);
  });
  const url = await program.listening;
  assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
  return { program, url, port: Number(new URL(url).port) };
}

/** Stops the program with SIGTERM; its exit code and signal. */
export async function stopService(program: ServerProgram): Promise<[number | null, NodeJS.Signals | null]> {
  program.child.kill('SIGTERM');
  return program.exited;
}

/** An answer as curl printed it (`--include`); the last one when curl followed redirects. */
export interface CurlAnswer {
  /** `2` or `1.1`, from the status line. */
  readonly version: string;
  readonly status: number;
  /** Lower-case names, in the order received; a repeated one is joined with `, `. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  /** Every status line, redirects first. */
  readonly statusLines: readonly string[];
}

/** Runs curl (`--include`, quiet but for errors); its answer, or a failed assertion when curl fails. */
export async function curl(args: readonly string[]): Promise<CurlAnswer> {
  const result = await runProgram('curl', ['--silent', '--show-error', '--include', '--max-time', '20', ...args]);
  assert.equal(result.code, 0, `curl ${args.join(' ')}: ${result.stderr}`);
  return parseCurlOutput(result.stdout.toString('utf8'));
}

function parseCurlOutput(text: string): CurlAnswer {
  const statusLines: string[] = [];
  let rest = text;
  let head = '';
  // Each answer's head, then (only after the last) the body; a redirect's head comes first.
  do {
    const end = rest.indexOf('\r\n\r\n');
    assert.ok(end >= 0, `no end of head in curl's output: ${rest.slice(0, 300)}`);
    head = rest.slice(0, end);
    rest = rest.slice(end + 4);
    statusLines.push(head.split('\r\n', 1)[0]!);
  } while (rest.startsWith('HTTP/'));
  const [statusLine, ...fields] = head.split('\r\n');
  const status = /^HTTP\/(1\.1|2) (\d{3})\b/.exec(statusLine!);
  assert.ok(status, `not a status line: ${statusLine}`);
  const headers = new Map<string, string>();
  for (const field of fields) {
    const colon = field.indexOf(':');
    const name = field.slice(0, colon).toLowerCase();
    const value = field.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { version: status[1]!, status: Number(status[2]), headers, body: rest, statusLines };
}

/** `openssl s_client` to the service as `localhost`, with `args`, fed `input` (nothing: it ends after the handshake). */
export function sClient(port: number, args: readonly string[], input = ''): ReturnType<typeof runProgram> {
  return runProgram('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...args], input);
}

/** The serial of the certificate a new handshake gets, read by `openssl x509` from s_client's output. */
export async function servedSerial(port: number, ca: string): Promise<string> {
  const hello = await sClient(port, ['-CAfile', ca]);
  assert.equal(hello.code, 0, hello.stderr);
  const printed = (await openssl(['x509', '-noout', '-serial'], hello.stdout)).toString('utf8').trim();
  const serial = /^serial=([0-9A-F]+)$/.exec(printed)?.[1];
  assert.ok(serial, `not a serial: ${printed}`);
  return serial;
}

/** What an interactive s_client printed, and whether it ended by itself before we gave up on it. */
export interface Conversation {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly endedByItself: boolean;
}

/**
 * Runs s_client interactively: once the handshake is done (its session printed), types `line`
 * as one of s_client's commands, keeps its input open and waits `waitMs` for it to end.
 */
export async function sClientCommand(port: number, args: readonly string[], line: string, waitMs = 5_000): Promise<Conversation> {
  const child = spawn('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  await once(child, 'spawn').catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ENOENT' ? new Error('openssl is not installed: run scripts/install-test-tools') : err;
  });
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.on('error', () => {}); // it may end before reading what was typed
  const typed = await Promise.race([
    new Promise<true>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        // The session is printed last, ending with a line of dashes, once the handshake is done.
        if (stdout.includes('Verify return code:') && stdout.endsWith('---\n')) {
          child.stdin.write(`${line}\n`);
          resolve(true);
        }
      });
    }),
    exited.then(() => false),
  ]);
  assert.ok(typed, `s_client ended before its handshake was done: ${stdout.slice(-500)} ${stderr}`);
  const patience = new AbortController();
  const outcome = await Promise.race([exited.then(() => 'ended' as const), sleep(waitMs, 'gave up' as const, { signal: patience.signal })]);
  patience.abort();
  if (outcome === 'gave up') {
    child.kill('SIGTERM');
    await exited;
  }
  return { stdout, stderr, code: child.exitCode, endedByItself: outcome === 'ended' };
}

/** One HTTP/1.1 keep-alive connection over TLS, held open by the test between requests. */
export interface HeldConnection {
  readonly socket: tls.TLSSocket;
  /** A GET on this very connection: its status and body. */
  get(target: string): Promise<{ status: number; body: string }>;
  close(): void;
}

/** Opens a TLS connection (ALPN http/1.1, trusting `ca` only) for one request after another. */
export async function holdHttp1Connection(port: number, ca: string): Promise<HeldConnection> {
  const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca, ALPNProtocols: ['http/1.1'] });
  await once(socket, 'secureConnect');
  assert.equal(socket.alpnProtocol, 'http/1.1');
  let received = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake?.();
  });
  socket.on('close', () => wake?.());
  socket.on('error', () => {}); // seen as the close that follows
  const get = async (target: string) => {
    received = Buffer.alloc(0);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost:${port}\r\nAccept: application/json\r\n\r\n`);
    for (;;) {
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = received.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
        assert.ok(Number.isInteger(length), `no Content-Length: ${head}`);
        if (received.length >= end + 4 + length) {
          return { status: Number(head.slice(9, 12)), body: received.subarray(end + 4, end + 4 + length).toString('utf8') };
        }
      }
      assert.ok(!socket.destroyed, `the held connection closed (${received.length} bytes of an answer)`);
      await woken();
    }
  };
  return { socket, get, close: () => socket.destroy() };
}

/**
 * Putting a renewed certificate in use without a restart: on SIGHUP, or when either file
 * changes, the pair is read and checked again, and applied only when it checks out; a broken
 * pair leaves the one in use in place and says why in one line.
 *
 * The files are watched with `fs.watchFile` (stat polling) rather than `fs.watch`: a stat
 * follows symbolic links, so certbot's `live/` links swapped to new `archive/` files are seen,
 * as are files renamed over or rewritten in place; `fs.watch` follows the file the path named
 * when it started, and misses the first two.
 */
import { unwatchFile, watchFile } from 'node:fs';
import { readTlsCredentials, type TlsCredentials, type TlsFiles, type TlsReading } from './credentials.js';

/** How often the files are looked at, in ms. */
export const DEFAULT_POLL_MS = 1000;
/** How long after the last change seen the pair is read, in ms: certificate and key are usually replaced one after the other. */
export const DEFAULT_SETTLE_MS = 500;

export type ReloadLogLevel = 'INFO' | 'WARNING' | 'ERROR';

export interface CredentialReloaderOptions {
  readonly files: TlsFiles;
  /** What the server started with. */
  readonly current: TlsCredentials;
  /** Puts a checked pair in use (the server's setSecureContext); may throw to refuse it. */
  readonly apply: (credentials: TlsCredentials) => void;
  readonly log: (level: ReloadLogLevel, line: string) => void;
  /** Ms since the epoch, for the validity checks; Date.now by default. */
  readonly clock?: () => number;
  /** Default DEFAULT_POLL_MS. */
  readonly pollMs?: number;
  /** Default DEFAULT_SETTLE_MS: wait this long after the last change seen before reading. */
  readonly settleMs?: number;
}

export interface CredentialReloader {
  /** Reads the pair again now (SIGHUP); applies it if it checks out; returns whether it was applied. */
  reload(reason: string): boolean;
  /** Stops watching the files; nothing is applied afterwards. */
  close(): void;
}

/** Watches the pair's files and reloads them after a change; `reload` does it at once. */
export function watchTlsCredentials(options: CredentialReloaderOptions): CredentialReloader {
  return new WatchedCredentials(options);
}

class WatchedCredentials implements CredentialReloader {
  readonly #options: CredentialReloaderOptions;
  readonly #clock: () => number;
  readonly #settleMs: number;
  // A set: TLS_CERT and TLS_KEY may name one file, and one listener is enough for it.
  readonly #paths: ReadonlySet<string>;
  readonly #onChange = () => this.#changed();
  #current: TlsCredentials;
  #settle: NodeJS.Timeout | undefined;
  #closed = false;
  /** The problems of the last pair refused, until one is applied. */
  #lastRefusal: string | undefined;

  constructor(options: CredentialReloaderOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.#current = options.current;
    this.#paths = new Set([options.files.certPath, options.files.keyPath]);
    // Not persistent: the watchers never keep the process alive.
    const watching = { interval: options.pollMs ?? DEFAULT_POLL_MS, persistent: false };
    for (const path of this.#paths) watchFile(path, watching, this.#onChange);
    // A change between the server's own read and the watchers' first look would go unseen (the
    // watchers compare against that look): the pair is read once more when it settles.
    this.#changed();
  }

  reload(reason: string): boolean {
    if (this.#closed) return false;
    clearTimeout(this.#settle);
    this.#settle = undefined;
    const previous = this.#current;
    const reading = this.#read(reason);
    if (!reading) return false;
    const next = reading.credentials;
    if (next.serial === previous.serial && next.cert === previous.cert) return false;
    const { log } = this.#options;
    try {
      this.#options.apply(next);
    } catch (err) {
      log('ERROR', notReloaded(reason, [messageOf(err)], previous));
      return false;
    }
    this.#current = next;
    this.#lastRefusal = undefined;
    log('INFO', `TLS certificate reloaded (serial ${previous.serial} -> ${next.serial}, ${next.subject}, valid until ${next.validTo.toISOString()}) on ${reason}`);
    for (const warning of reading.warnings) log('WARNING', warning);
    return true;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#settle);
    this.#settle = undefined;
    for (const path of this.#paths) unwatchFile(path, this.#onChange);
  }

  /** The pair as read now, checked; undefined (and said in the log) when it cannot be used. */
  #read(reason: string): Extract<TlsReading, { ok: true }> | undefined {
    let problems: readonly string[];
    try {
      const reading = readTlsCredentials(this.#options.files, this.#clock());
      if (reading.ok) return reading;
      problems = reading.problems.map((problem) => problem.message);
    } catch (err) {
      problems = [messageOf(err)];
    }
    // The watcher sees the files a SIGHUP was sent for change too: the same refusal is said once.
    const said = problems.join('; ');
    if (reason !== 'file change' || said !== this.#lastRefusal) this.#options.log('ERROR', notReloaded(reason, problems, this.#current));
    this.#lastRefusal = said;
    return undefined;
  }

  /** A file changed (replaced, rewritten, its link swapped, removed): read the pair once changes stop. */
  #changed(): void {
    if (this.#closed) return;
    clearTimeout(this.#settle);
    this.#settle = setTimeout(() => this.#reloadFromTimer(), this.#settleMs);
    this.#settle.unref();
  }

  /** A reload no exception leaves: nothing above a timer would catch it. */
  #reloadFromTimer(): void {
    this.#settle = undefined;
    try {
      this.reload('file change');
    } catch {
      // Only `log` or a getter of the options can throw here, and there is nowhere left to say so.
    }
  }
}

function notReloaded(reason: string, problems: readonly string[], inUse: TlsCredentials): string {
  return `TLS certificate not reloaded on ${reason}: ${problems.join('; ')}; the previous one (serial ${inUse.serial}) stays in use`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

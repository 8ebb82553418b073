/**
 * The settings document store: one JSON document per file under
 * `<VAR_DIR>/settings/1.0/<id>.json`, written atomically, read through a cache of parsed
 * documents kept in the hydrator directory `<VAR_DIR>/cache/<APP_ENV>/hydrators`.
 *
 * The hydrator directory must be writable: while it is not, every read fails with
 * StoreNotWritable (answered 404 `Your hydrator directory must be writable.`, as observed),
 * and the store recovers by itself once the directory is usable again.
 *
 * A document is read only when it is a regular file of at most DOCUMENT_MAX_BYTES whose JSON
 * nests at most DOCUMENT_MAX_DEPTH deep; anything else is a CorruptDocument that says which
 * bound it passed, read no further than the bound.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { Problem } from '../core/index.js';
import { parseBoundedJson } from '../util/bounded-json.js';
import { errorCode } from '../util/errno.js';
import { FileRefused, readRegularFile, type RegularFileContents } from '../util/regular-file.js';

/** The namespace version of the settings documents. */
export const SETTINGS_VERSION = '1.0';

/** The largest document read, in bytes: a settings document is a few hundred. */
export const DOCUMENT_MAX_BYTES = 64 * 1024;
/** How deep a document's arrays and objects may nest: the service document needs two levels. */
export const DOCUMENT_MAX_DEPTH = 32;
/**
 * The largest hydrated copy read back. It may be longer than its document (a number written
 * `1e20` comes back as 21 digits); a longer copy is only parsed again from the document.
 */
const HYDRATED_MAX_BYTES = 8 * DOCUMENT_MAX_BYTES;

const ID = /^[a-z0-9-]{1,64}$/;

/** The hydrator directory cannot be created or written. */
export class StoreNotWritable extends Problem {
  constructor(cause: unknown) {
    super('store_not_writable', 'Your hydrator directory must be writable.', { cause });
  }
}

/** A stored document that cannot be used (not a regular file, past a bound, not JSON): a 500 whose log line names the file and why. */
export class CorruptDocument extends Error {
  constructor(path: string, reason: string) {
    super(`Settings document ${path} is not usable: ${reason}`);
    this.name = 'CorruptDocument';
  }
}

export interface SettingsStore {
  /** The document, or undefined when there is none. */
  get(id: string): unknown;
  put(id: string, doc: unknown): void;
  /** Ids of the stored documents, sorted. */
  list(): string[];
  /** Writes `doc` only when no document `id` exists yet; returns the stored one. */
  ensure(id: string, doc: unknown): unknown;
  readonly documentsDir: string;
  readonly hydratorDir: string;
}

export interface StoreOptions {
  readonly varDir: string;
  readonly appEnv: string;
  readonly clock?: () => number;
  /** How long a successful check of the hydrator directory, or of a document's file, is trusted (default 1 s). */
  readonly recheckMs?: number;
}

interface Hydrated {
  readonly mtimeMs: number;
  readonly size: number;
  readonly doc: unknown;
}

/** Opens the store; touches the file system only when used. */
export function createSettingsStore(options: StoreOptions): SettingsStore {
  return new FileSettingsStore(options);
}

/** The store over its two directories, with the parsed documents it holds in memory. */
class FileSettingsStore implements SettingsStore {
  readonly documentsDir: string;
  readonly hydratorDir: string;
  readonly #clock: () => number;
  readonly #recheckMs: number;
  /** Parsed documents and when their file was last looked at. */
  readonly #memory = new Map<string, { hydrated: Hydrated; checkedAt: number }>();
  #hydratorsCheckedAt = -Infinity;

  constructor(options: StoreOptions) {
    this.documentsDir = join(options.varDir, 'settings', SETTINGS_VERSION);
    this.hydratorDir = join(options.varDir, 'cache', options.appEnv, 'hydrators');
    this.#clock = options.clock ?? Date.now;
    this.#recheckMs = options.recheckMs ?? 1_000;
  }

  get(id: string): unknown {
    const now = this.#clock();
    const cached = this.#memory.get(id);
    // Within recheckMs of both checks a document is served from memory: a hot path makes no
    // system call. Only a checked id is ever in memory.
    if (cached && now - cached.checkedAt < this.#recheckMs && now - this.#hydratorsCheckedAt < this.#recheckMs) return cached.hydrated.doc;
    checkId(id);
    this.#checkHydrators();
    const path = join(this.documentsDir, `${id}.json`);
    const stat = statIfPresent(path);
    if (!stat) return undefined;
    // Anything but a regular file goes straight to `hydrate`, whose read refuses it and says why.
    const regular = stat.isFile();
    if (regular && cached && cached.hydrated.mtimeMs === stat.mtimeMs && cached.hydrated.size === stat.size) {
      cached.checkedAt = now;
      return cached.hydrated.doc;
    }
    const hydrated = (regular ? readHydrated(this.hydratorDir, id, stat.mtimeMs, stat.size) : undefined) ?? hydrate(this.hydratorDir, id, path);
    this.#memory.set(id, { hydrated, checkedAt: now });
    return hydrated.doc;
  }

  put(id: string, doc: unknown): void {
    checkId(id);
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    // What is stored must read back.
    if (Buffer.byteLength(text) > DOCUMENT_MAX_BYTES) throw new RangeError(`settings document ${id} would be larger than ${DOCUMENT_MAX_BYTES} bytes`);
    mkdirSync(this.documentsDir, { recursive: true });
    writeAtomically(this.documentsDir, `${id}.json`, text, true);
    this.#memory.delete(id);
  }

  list(): string[] {
    return listIds(this.documentsDir);
  }

  ensure(id: string, doc: unknown): unknown {
    const existing = this.get(id);
    if (existing !== undefined) return existing;
    this.put(id, doc);
    return this.get(id);
  }

  /** Creates the hydrator directory if needed and proves it writable, at most once per recheckMs. */
  #checkHydrators(): void {
    const now = this.#clock();
    if (now - this.#hydratorsCheckedAt < this.#recheckMs) return;
    try {
      proveWritable(this.hydratorDir);
    } catch (err) {
      this.#hydratorsCheckedAt = -Infinity;
      this.#memory.clear();
      throw new StoreNotWritable(err);
    }
    this.#hydratorsCheckedAt = now;
  }
}

function checkId(id: string): void {
  if (typeof id !== 'string' || !ID.test(id)) throw new TypeError(`settings id must match [a-z0-9-]{1,64}, got ${JSON.stringify(id)}`);
}

/** Creates `dir` if needed and writes and removes a probe file in it. */
function proveWritable(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const probe = join(dir, `.probe-${process.pid}`);
  writeFileSync(probe, '');
  unlinkSync(probe);
}

/** The file's stat, or undefined when there is no file. */
function statIfPresent(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/** The parsed document from the hydrator directory, if it matches the file's mtime and size. */
function readHydrated(hydratorDir: string, id: string, mtimeMs: number, size: number): Hydrated | undefined {
  try {
    const { bytes } = readRegularFile(join(hydratorDir, `${id}.json`), HYDRATED_MAX_BYTES);
    // The copy wraps the document in one more object.
    const parsed = parseBoundedJson(bytes.toString('utf8'), DOCUMENT_MAX_DEPTH + 1);
    if (!parsed.ok) return undefined;
    const hydrated = parsed.value as Hydrated;
    return hydrated.mtimeMs === mtimeMs && hydrated.size === size ? hydrated : undefined;
  } catch {
    return undefined; // missing, refused or stale cache: parse the document again
  }
}

/** Parses the document at `path` and keeps the parse in the hydrator directory. */
function hydrate(hydratorDir: string, id: string, path: string): Hydrated {
  const { bytes, stats } = readDocument(path);
  const parsed = parseBoundedJson(bytes.toString('utf8'), DOCUMENT_MAX_DEPTH);
  if (!parsed.ok) throw new CorruptDocument(path, parsed.problem);
  const hydrated: Hydrated = { mtimeMs: stats.mtimeMs, size: stats.size, doc: parsed.value };
  try {
    writeAtomically(hydratorDir, `${id}.json`, JSON.stringify(hydrated), false);
  } catch (err) {
    throw new StoreNotWritable(err);
  }
  return hydrated;
}

/** The document's bytes, with the stats of what was read; a file past the bounds is a CorruptDocument. */
function readDocument(path: string): RegularFileContents {
  try {
    return readRegularFile(path, DOCUMENT_MAX_BYTES);
  } catch (err) {
    if (err instanceof FileRefused) throw new CorruptDocument(path, err.reason);
    throw err;
  }
}

/** Ids of the documents in `documentsDir`, sorted; none when it does not exist yet. */
function listIds(documentsDir: string): string[] {
  try {
    return readdirSync(documentsDir)
      .filter((name) => name.endsWith('.json') && ID.test(name.slice(0, -5)))
      .map((name) => name.slice(0, -5))
      .sort();
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return [];
    throw err;
  }
}

/**
 * A temp name's random part. It only has to differ between writers racing on one directory (the
 * `wx` open refuses a clash), not be unguessable: Math.random keeps node:crypto out of start-up.
 */
function tempSuffix(): string {
  return Math.floor(Math.random() * 0x1_0000_0000).toString(16).padStart(8, '0');
}

/**
 * Writes `name` in `dir` so that readers see the old or the new content, never a mix: a temp
 * file, fsync, rename over the target, then (when `durable`) fsync of the directory so the
 * rename itself survives a crash.
 */
export function writeAtomically(dir: string, name: string, text: string, durable: boolean): void {
  const temp = join(dir, `.${name}.${process.pid}.${tempSuffix()}.tmp`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    const data = Buffer.from(text);
    let offset = 0;
    while (offset < data.byteLength) offset += writeSync(fd, data, offset);
    if (durable) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  renameSync(temp, join(dir, name));
  if (durable) {
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }
}

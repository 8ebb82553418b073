/**
 * The service's own settings document, backed by the settings store: created with defaults on
 * first start, read (through the hydrator cache) by every `GET /`.
 */
import { join } from 'node:path';
import { failed, succeeded, type Result } from '../util/result.js';
import { CorruptDocument, type SettingsStore } from './settings-store.js';

/** The namespaces `GET /` may link; `admin` is deliberately not one of them. */
export const PUBLIC_NAMESPACES = ['doc', 'problem', 'schema', 'service', 'static'] as const;
export type PublicNamespace = (typeof PUBLIC_NAMESPACES)[number];

/** The service's own settings document (the store keeps it). */
export interface ServiceDocument {
  readonly name: string;
  readonly version: string;
  /** Which public namespaces `GET /` links, in order. */
  readonly links: readonly PublicNamespace[];
}

export const DEFAULT_SERVICE_DOCUMENT: ServiceDocument = Object.freeze({
  name: 'problem-service',
  version: '1.0',
  links: PUBLIC_NAMESPACES,
});

/** Reads the service document; the settings store backs it, tests may stub it. */
export type ServiceDocumentSource = () => ServiceDocument | Promise<ServiceDocument>;

export const SERVICE_DOCUMENT_ID = 'service';

/** Writes the default document if there is none; a broken store is left for requests to report. */
export function ensureServiceDocument(store: SettingsStore): void {
  try {
    store.ensure(SERVICE_DOCUMENT_ID, DEFAULT_SERVICE_DOCUMENT);
  } catch {
    // Requests that read the store will answer (and log) the problem; start-up goes on.
  }
}

/** A source for `GET /` that reads the store on every call. */
export function storeServiceDocument(store: SettingsStore): ServiceDocumentSource {
  // The store hands out the same parsed object until the file changes: check it once.
  let last: { stored: unknown; doc: ServiceDocument } | undefined;
  return () => {
    const stored = store.ensure(SERVICE_DOCUMENT_ID, DEFAULT_SERVICE_DOCUMENT);
    if (last !== undefined && last.stored === stored) return last.doc;
    const parsed = parseServiceDocument(stored);
    if (!parsed.ok) throw new CorruptDocument(join(store.documentsDir, `${SERVICE_DOCUMENT_ID}.json`), parsed.problem);
    last = { stored, doc: parsed.value };
    return parsed.value;
  };
}

/** Checks a stored service document; a wrong shape names the problem, never a crash later. */
export function parseServiceDocument(value: unknown): Result<ServiceDocument, string> {
  if (typeof value !== 'object' || value === null) return failed('not an object');
  const doc = value as Record<string, unknown>;
  if (typeof doc.name !== 'string' || doc.name === '') return failed('"name" must be a non-empty string');
  if (typeof doc.version !== 'string' || doc.version === '') return failed('"version" must be a non-empty string');
  const links = doc.links;
  if (!Array.isArray(links) || !links.every((l) => (PUBLIC_NAMESPACES as readonly unknown[]).includes(l))) {
    return failed(`"links" must list namespaces among ${PUBLIC_NAMESPACES.join(', ')}`);
  }
  return succeeded({ name: doc.name, version: doc.version, links: links as PublicNamespace[] });
}

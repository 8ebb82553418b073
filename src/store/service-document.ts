/**
 * The service's own settings document, backed by the settings store: created with defaults on
 * first start, read (through the hydrator cache) by every `GET /`.
 */
import { join } from 'node:path';
import { DEFAULT_SERVICE_DOCUMENT, parseServiceDocument, type ServiceDocument, type ServiceDocumentSource } from '../entry-point.js';
import { CorruptDocument, type SettingsStore } from './settings-store.js';

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

/**
 * Settings documents, the door of `store/`: the document store (`store/settings-store.ts`) and
 * the service's own document kept in it (`store/service-document.ts`).
 */
export {
  CorruptDocument,
  createSettingsStore,
  DOCUMENT_MAX_BYTES,
  DOCUMENT_MAX_DEPTH,
  SETTINGS_VERSION,
  StoreNotWritable,
  writeAtomically,
  type SettingsStore,
  type StoreOptions,
} from './settings-store.js';
export { ensureServiceDocument, SERVICE_DOCUMENT_ID, storeServiceDocument } from './service-document.js';
export { DEFAULT_SERVICE_DOCUMENT, PUBLIC_NAMESPACES, type PublicNamespace, type ServiceDocument, type ServiceDocumentSource, parseServiceDocument } from './service-document.js';

/**
 * `GET /`: the entry-point document naming the service and linking its public namespaces
 * (never the admin one), as JSON for API clients and a small page for browsers (SPEC 6).
 */
import type { Namespaces } from './config.js';
import { escapeHtml, renderPage } from './html.js';
import type { Representation } from './representation.js';
import { namespaceUrl } from './http/request.js';
import { failed, succeeded, type Result } from './util/result.js';

/** The namespaces `GET /` may link; `admin` is deliberately not one of them. */
export const PUBLIC_NAMESPACES = ['doc', 'problem', 'schema', 'service', 'static'] as const;
export type PublicNamespace = (typeof PUBLIC_NAMESPACES)[number];

/** The service's own settings document (the store keeps it; see SPEC 10). */
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

export interface EntryPoint {
  readonly name: string;
  readonly version: string;
  readonly links: Readonly<Record<string, string>>;
}

/** The entry-point document with absolute links for this request's base URL. */
export function buildEntryPoint(service: ServiceDocument, namespaces: Namespaces, baseUrl: string): EntryPoint {
  const links: Record<string, string> = {};
  for (const name of service.links) {
    if ((PUBLIC_NAMESPACES as readonly string[]).includes(name)) links[name] = namespaceUrl(namespaces[name], baseUrl);
  }
  return { name: service.name, version: service.version, links };
}

export function renderEntryPoint(doc: EntryPoint, representation: Representation): { contentType: string; body: string } {
  if (representation === 'json') return { contentType: 'application/json', body: JSON.stringify(doc) };
  const items = Object.entries(doc.links)
    .map(([name, url]) => `<dt>${escapeHtml(name)}</dt><dd><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></dd>`)
    .join('');
  const body = `<h1>${escapeHtml(doc.name)}</h1><p>Version ${escapeHtml(doc.version)}</p><h2>Links</h2><dl>${items}</dl>`;
  return { contentType: 'text/html; charset=UTF-8', body: renderPage(doc.name, body) };
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

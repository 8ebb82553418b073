/**
 * `GET /`: the entry-point document naming the service and linking its public namespaces
 * (never the admin one), as JSON for API clients and a small page for browsers (docs/http.md, "Routing and errors").
 */
import type { Namespaces } from '../config/index.js';
import { escapeHtml, renderPage, type Representation } from '../core/index.js';
import { namespaceUrl } from '../http/index.js';
import { DEFAULT_SERVICE_DOCUMENT, PUBLIC_NAMESPACES, type ServiceDocument } from '../store/index.js';

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

/**
 * The entry point as a body: JSON for API clients, a page for browsers. `version` is the API's
 * (the service document's, `1.0`), not the package's: describeVersions says both.
 */
export function renderEntryPoint(doc: EntryPoint, representation: Representation): { contentType: string; body: string } {
  if (representation === 'json') return { contentType: 'application/json', body: JSON.stringify(doc) };
  const items = Object.entries(doc.links)
    .map(([name, url]) => `<dt>${escapeHtml(name)}</dt><dd><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></dd>`)
    .join('');
  const body = `<h1>${escapeHtml(doc.name)}</h1><p>Version ${escapeHtml(doc.version)} of the API</p><h2>Links</h2><dl>${items}</dl>`;
  return { contentType: 'text/html; charset=UTF-8', body: renderPage(doc.name, body) };
}

/**
 * What `problem-service --version` prints, from the package's package.json text: the package's
 * version (`0.1.0`, npm's, which moves with every release) and the API version `GET /` reports
 * (`1.0`, the service document's, which moves when the API does).
 */
export function describeVersions(packageJson: string, apiVersion: string = DEFAULT_SERVICE_DOCUMENT.version): string {
  const { name, version } = JSON.parse(packageJson) as { name: string; version: string };
  return `${name} ${version} (API version ${apiVersion}, as GET / reports it)`;
}

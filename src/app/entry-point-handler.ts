/**
 * The handler of `GET /`: reads the service document (the store answers synchronously) and
 * sends the rendered entry point, kept while the document and the base URL stay the same.
 */
import type { ServerResponse } from 'node:http';
import type { Config } from '../config/index.js';
import { buildEntryPoint, renderEntryPoint } from './entry-point.js';
import { DEFAULT_SERVICE_DOCUMENT, type ServiceDocument, type ServiceDocumentSource } from '../store/index.js';
import { type Handler, type RequestContext, writeFramedHead, type HeaderList } from '../http/index.js';
import type { Representation } from '../core/index.js';

interface Rendered {
  readonly doc: ServiceDocument;
  /** The whole head, made with the body: each answer hands Node the same list. */
  readonly headers: Readonly<HeaderList>;
  readonly body: Buffer;
}

/** Base URLs come from Host headers: a bound keeps their variety from growing the cache. */
const MAX_RENDERED = 64;

export function createEntryPointHandler(
  config: Config,
  source: ServiceDocumentSource = () => DEFAULT_SERVICE_DOCUMENT,
  representationFor: (ctx: RequestContext) => Representation,
): Handler {
  /**
   * Rendered entry points by representation, then base URL, while the document stays the same
   * (two levels: no key string is built per request).
   */
  const rendered: Record<Representation, Map<string, Rendered>> = { json: new Map(), html: new Map() };

  function send(ctx: RequestContext, res: ServerResponse, doc: ServiceDocument): void {
    const representation = representationFor(ctx);
    const byBaseUrl = rendered[representation];
    let entry = byBaseUrl.get(ctx.baseUrl);
    if (entry?.doc !== doc) {
      const page = renderEntryPoint(buildEntryPoint(doc, config.namespaces, ctx.baseUrl), representation);
      const body = Buffer.from(page.body);
      const headers = ['content-type', page.contentType, 'vary', 'Accept', 'cache-control', 'no-cache, private', 'content-length', String(body.byteLength)];
      entry = { doc, headers, body };
      if (byBaseUrl.size >= MAX_RENDERED) byBaseUrl.clear();
      byBaseUrl.set(ctx.baseUrl, entry);
    }
    const withBody = writeFramedHead(res, 200, entry.headers);
    res.end(withBody ? entry.body : undefined);
  }

  return (ctx, _req, res) => {
    const doc = source();
    // The store answers synchronously; a promise only from a source that needs one.
    if (doc instanceof Promise) return doc.then((d) => send(ctx, res, d));
    send(ctx, res, doc);
  };
}

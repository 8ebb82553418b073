/**
 * The two representations the service has for documents and problems (docs/http.md, "Routing and errors"): HTML for
 * browsers, JSON for API clients. The edge negotiates one (`http/negotiation.ts`); the core
 * renders it, without importing the edge.
 */
export type Representation = 'html' | 'json';

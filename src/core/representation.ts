/**
 * The two representations the service has for documents and problems (README, "Routing and errors"): HTML for
 * browsers, JSON for API clients. The edge negotiates one (`http/negotiation.ts`); the core
 * renders it, without importing the edge.
 */
export type Representation = 'html' | 'json';

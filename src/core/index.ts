/**
 * The core: problems (RFC 9457) and their catalogue, the router, the representations a client
 * may ask for, and the small HTML the service writes. It imports nothing from the edge (`http/`).
 */
export { escapeHtml, renderPage, renderStack, type SourceLink } from './html.js';
export { buildProblemDocument, InternalError, methodNotAllowed, MethodNotAllowed, notFoundCachePolicy, PlainProblemPages, Problem, PROBLEMS, type ProblemAnswer, type ProblemCode, type ProblemDocument, problemHeaders, type ProblemPageContext, problemTitle, problemVary, renderProblem, routeNotFound, RouteNotFound } from './problem.js';
export { type Representation } from './representation.js';
export { compileRoutes, matchRoute, type Route, splitPath } from './router.js';

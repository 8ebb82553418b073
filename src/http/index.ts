/**
 * The HTTP edge: a request's context (target, method, host, client, id), negotiation, answers and
 * their framing, bodies, CORS headers, connections and their bounds (timeouts, pipelining,
 * early close), CONNECT, the parser's refusals, the edge's problems.
 */
export { createClientErrorHandler } from './client-errors.js';
export { answerConnectWith } from './connect.js';
export { applyConnectionRules, type ConnectionTimeouts, DEFAULT_TIMEOUTS, timeoutOptions } from './connections.js';
export { corsAnswerHeaders, corsPreflightHeaders } from './cors.js';
export { CountedRequest, createResponseClass } from './early-close.js';
export { type Handler, type HandlerMatch, type ServiceRoute } from './handler.js';
export { headerText } from './header-value.js';

export { formatHttpDate, parseHttpDate } from './http-date.js';
export { listen } from './listen.js';
export { createNegotiator } from './negotiation.js';
export { boundPipelining } from './pipelining.js';
export { unmapV4 } from './proxies.js';
export { mediaTypeOf, parseJsonBody, readBody, UnsupportedMediaType } from './request-body.js';
export { createRequestIdSource } from './request-id.js';
export { decodeUtf8, namespaceUrl, type RequestContext, resolveRequest, underNamespace } from './request.js';
export { type RedirectTarget, redirectLocation, startRedirectListener } from './redirect.js';
export { STOP_GRACE_MS, stopGracefully, watchConnections } from './graceful-stop.js';
export { closeSessions, createSecureServer, H2_BOUNDS, secureContextOptions } from './secure-server.js';
export { addToEveryAnswer, answeredBodyBytes, createHttpDateFormatter, echoRequestId, frameForWireMethod, type HeaderList, sendBody, writeFramedHead } from './response.js';
export { isOws, skipDigits, skipOws, trimOws } from './scan.js';

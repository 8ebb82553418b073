/**
 * Node's HTTP module, loaded with `require`. An ESM `import` of `node:http` reads every export to
 * build the module namespace, and on Node 22 and 24 three of them (`WebSocket`, `MessageEvent`,
 * `CloseEvent`) load Node's bundled fetch client: a fifth of the service's cold start and memory
 * it never uses (nodejs/node#57649; the figures are in
 * bench/RESULTS.md, "Service against its peers: start only").
 * The classes are exported as values and as types, as `node:http` exports them.
 */
import type * as Http from 'node:http';
import { createRequire } from 'node:module';

const http: Readonly<typeof Http> = createRequire(import.meta.url)('node:http');

export const { createServer, STATUS_CODES } = http;
export const IncomingMessage = http.IncomingMessage;
export type IncomingMessage = Http.IncomingMessage;
export const ServerResponse = http.ServerResponse;
export type ServerResponse<Request extends Http.IncomingMessage = Http.IncomingMessage> = Http.ServerResponse<Request>;
